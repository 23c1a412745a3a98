export interface A {
  id: string;
  name: string;
}

export interface B {
  id: string;
  name: string;
  email?: string;
}
