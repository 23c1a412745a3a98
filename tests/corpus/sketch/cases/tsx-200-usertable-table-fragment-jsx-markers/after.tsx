import React, { useMemo, useState } from 'react';
import type { User } from '../types';
import { Avatar } from './Avatar';

type SortKey = 'name' | 'email' | 'createdAt';

interface UserTableProps {
  users: User[];
  onSelect?: (user: User) => void;
}

export function UserTable({ users, onSelect }: UserTableProps) {
  const [sortKey, setSortKey] = useState<SortKey>('name');
  const [query, setQuery] = useState('');

  const rows = useMemo(() => {
    const q = query.trim().toLowerCase();
    const filtered = q
      ? users.filter((u) => u.name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q))
      : users;
    return [...filtered].sort((a, b) => String(a[sortKey]).localeCompare(String(b[sortKey])));
  }, [users, query, sortKey]);

  return (
    <div className="user-table">
      <input
        type="search"
        placeholder="Filter users"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      <table>
        <thead>
          <tr>
            <th onClick={() => setSortKey('name')}>Name</th>
            <th onClick={() => setSortKey('email')}>Email</th>
            <th onClick={() => setSortKey('createdAt')}>Joined</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && (
            <tr className="empty">
              <td colSpan={3}>No users match the filter</td>
            </tr>
          )}
          {rows.map((user) => (
            <tr key={user.id} onClick={() => onSelect?.(user)}>
              <td>
                <Avatar src={user.avatarUrl} size={24} />
                {user.name}
              </td>
              <td>{user.email}</td>
              <td>{new Date(user.createdAt).toLocaleDateString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
