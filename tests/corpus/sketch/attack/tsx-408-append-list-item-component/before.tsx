export function App() {
  return (
    <Routes>
      <Route
        path="/users"
        element={<Users />}
        errorElement={<Oops />}
      />
    </Routes>
  );
}
