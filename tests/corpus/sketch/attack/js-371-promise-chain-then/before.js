function go() {
  return fetch(url)
    .then((r) => {
      return r.json();
    })
    .then((d) => {
      render(d);
    });
}
