export function C({ id }) {
  useEffect(() => {
    load(id);
  }, [id]);

  useEffect(() => {
    track(id);
  }, [id]);

  return <div>{id}</div>;
}
