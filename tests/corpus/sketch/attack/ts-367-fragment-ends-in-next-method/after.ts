class P {
  a(): number {
    const t = 1;
    return this.y;
  }

  b(): number {
    return this.y;
  }
}
