export function load(path: string): string {
  const raw = read(path);
  const text = raw.trim();
  return text;
}
