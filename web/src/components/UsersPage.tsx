// The users (admins only): who may log in, and a form that adds one.
import { useState } from "preact/hooks";

import { api } from "../api";
import { formatTime } from "../format";
import { usePoll } from "../use_poll";
import { ErrorMessage } from "./ErrorMessage";

export function UsersPage() {
  const users = usePoll(() => api.users(), [], 0);
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [admin, setAdmin] = useState(false);
  const [error, setError] = useState<Error>();
  const create = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      await api.createUser(username, password, admin);
      setUsername("");
      setPassword("");
      setAdmin(false);
      users.reload();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <div class="page users-page">
      <div class="page-title"><h1>Users</h1></div>
      <ErrorMessage error={users.error} />
      <section class="panel">
        <table class="table">
          <thead><tr><th>Name</th><th>Admin</th><th>Created</th><th>Disabled</th></tr></thead>
          <tbody>
            {(users.data?.users ?? []).map((u) => (
              <tr><td>{u.name}</td><td>{u.admin ? "yes" : ""}</td><td>{formatTime(u.created_at_ms)}</td>
                <td>{u.disabled ? "yes" : ""}</td></tr>
            ))}
          </tbody>
        </table>
      </section>
      <form class="panel user-form" onSubmit={create}>
        <h2>Add a user</h2>
        <input name="new-username" placeholder="name" value={username} onInput={(e) => setUsername(e.currentTarget.value)} />
        <input name="new-password" type="password" placeholder="password" value={password}
               onInput={(e) => setPassword(e.currentTarget.value)} />
        <label><input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.currentTarget.checked)} /> admin</label>
        <button type="submit" class="primary" disabled={!username || !password}>Add</button>
        <ErrorMessage error={error} />
      </form>
    </div>
  );
}
