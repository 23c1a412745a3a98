describe('s', () => {
  it('a', async () => {
    const r = await run();
    expect(r).toBe(true);
  });

  it('b', async () => {
    const r = await run();
    expect(r).toBe(true);
  });
});
