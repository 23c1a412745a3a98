export class S {
  get(k: string): string {
    const v = this.m.get(k);
    const w = v ?? "";
    console.log(w);
    return w;
  }
}
