export class Card {
  constructor(private svc: Svc) {}

  @Input()
  title: string = "";
}
