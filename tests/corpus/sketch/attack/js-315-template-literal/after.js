function render(name) {
  const html = `
<div>
  <h1>${name}</h1>
</div>
`;
  console.log(html);
  return html;
}

function other() {
  return 1;
}
