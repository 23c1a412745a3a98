export function App() {
  return (
    <Routes>
      <Route
        path="/users"
        element={<Users />}
        errorElement={<Oops />}
      />
      <Route
        path="/groups"
        element={<Groups />}
        errorElement={<Oops />}
      />
    </Routes>
  );
}
