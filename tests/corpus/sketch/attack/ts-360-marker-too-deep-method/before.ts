export class Store {
  private items: string[] = [];

  add(x: string): void {
    this.items.push(x);
  }
}
