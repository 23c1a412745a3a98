import { action } from "mobx";

export class Store {
  items: string[] = [];

  @action
  add(x: string) {
    this.items.push(x);
  }
}
