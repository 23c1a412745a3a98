export class W {
  run(): void {
    this.open();
    this.write();
    this.flush();
  }
}
