export function Bar() {
  return (
    <div>
      <Button
        variant="primary"
        onClick={save}
      />
      <Button
        variant="primary"
        onClick={save}
      />
    </div>
  );
}
