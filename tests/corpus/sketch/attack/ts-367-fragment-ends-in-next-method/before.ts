class P {
  a(): number {
    const t = 1;
    return this.x;
  }

  b(): number {
    return this.y;
  }
}
