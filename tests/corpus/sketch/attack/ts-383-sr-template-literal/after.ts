export function sql(t: string): string {
  const q = `
SELECT *
FROM ${t}
`;
  const r = q.trim();
  console.log(r);
  return r;
}
