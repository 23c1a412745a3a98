function render(name) {
  const html = `
<div>
  <h1>${name}</h1>
</div>
`;
  return html;
}

function other() {
  return 1;
}
