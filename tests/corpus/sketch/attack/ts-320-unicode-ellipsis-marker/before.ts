export class A {
  one(): number {
    return 1;
  }

  two(): number {
    return 2;
  }
}
