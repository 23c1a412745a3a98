describe('math', () => {
  it('adds', () => {
    expect(add(1, 2)).toBe(3);
  });

  it('subs', () => {
    expect(sub(3, 2)).toBe(1);
  });
});
