export function C({ id }) {
  useEffect(() => {
    load(id);
  }, [id]);

  useEffect(() => {
    track(id);
    log(id);
  }, [id]);

  return <div>{id}</div>;
}
