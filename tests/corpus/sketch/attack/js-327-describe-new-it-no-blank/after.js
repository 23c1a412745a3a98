import { add, sub, mul } from './math';

describe('math', () => {
  it('adds', () => {
    expect(add(1, 2)).toBe(3);
  });
  it('subs', () => {
    expect(sub(3, 2)).toBe(1);
  });
  it('muls', () => {
    expect(mul(2, 3)).toBe(6);
  });
});

describe('other', () => {
  it('x', () => {
    expect(1).toBe(1);
  });
});
