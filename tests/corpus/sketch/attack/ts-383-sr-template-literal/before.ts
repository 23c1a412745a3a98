export function sql(t: string): string {
  const q = `
SELECT *
FROM ${t}
`;
  const r = q.trim();
  return r;
}
