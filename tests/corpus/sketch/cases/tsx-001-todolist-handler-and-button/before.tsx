import { useEffect, useMemo, useState } from "react";

import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { fetchTodos, type Todo } from "@/lib/api";

type Filter = "all" | "active" | "done";

interface TodoListProps {
  userId: string;
  initialFilter?: Filter;
}

export function TodoList({ userId, initialFilter = "all" }: TodoListProps) {
  const [todos, setTodos] = useState<Todo[]>([]);
  const [filter, setFilter] = useState<Filter>(initialFilter);
  const [query, setQuery] = useState("");

  useEffect(() => {
    let cancelled = false;
    fetchTodos(userId).then((items) => {
      if (!cancelled) setTodos(items);
    });
    return () => {
      cancelled = true;
    };
  }, [userId]);

  const visible = useMemo(
    () =>
      todos
        .filter((t) => filter === "all" || (filter === "done") === t.done)
        .filter((t) => t.title.toLowerCase().includes(query.toLowerCase())),
    [todos, filter, query],
  );

  function toggle(id: string) {
    setTodos((prev) => prev.map((t) => (t.id === id ? { ...t, done: !t.done } : t)));
  }

  return (
    <section className="todo-list">
      <header className="flex gap-2">
        <Input value={query} onChange={(e) => setQuery(e.target.value)} placeholder="Search" />
        <Button variant={filter === "all" ? "default" : "outline"} onClick={() => setFilter("all")}>
          All
        </Button>
        <Button variant={filter === "active" ? "default" : "outline"} onClick={() => setFilter("active")}>
          Active
        </Button>
        <Button variant={filter === "done" ? "default" : "outline"} onClick={() => setFilter("done")}>
          Done
        </Button>
      </header>
      <ul>
        {visible.map((todo) => (
          <li key={todo.id}>
            <label>
              <input type="checkbox" checked={todo.done} onChange={() => toggle(todo.id)} />
              {todo.title}
            </label>
          </li>
        ))}
      </ul>
    </section>
  );
}
