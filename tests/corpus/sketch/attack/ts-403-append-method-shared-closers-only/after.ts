export class Api {
  async users(): Promise<User[]> {
    try {
      return await this.get("/users");
    } catch (e) {
      throw wrap(e);
    }
  }

  async groups(): Promise<Group[]> {
    try {
      return await this.get("/groups");
    } catch (e) {
      throw wrap(e);
    }
  }
}
