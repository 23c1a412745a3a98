export function load(path: string): string {
  const raw = read(path);
  const text = raw.trim();
  cache.set(path, text);
  return text;
}
