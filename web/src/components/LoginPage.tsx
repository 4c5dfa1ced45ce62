// Sign in with a user name and password; a refusal (wrong credentials,
// too many attempts) is shown on the form.
import { useState } from "preact/hooks";

import { api, ApiError, type User } from "../api";

export function LoginPage({ onLogin }: { onLogin: (user: User) => void }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const result = await api.login(username, password);
      onLogin(result.user);
    } catch (err) {
      // 429 (throttled): the server's message says when to try again.
      setError(err instanceof ApiError && err.status === 401 ? "Wrong user name or password." : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="login-page">
      <form class="login-form panel" onSubmit={submit}>
        <h1>Volador</h1>
        <label>User<input name="username" autocomplete="username" value={username}
                          onInput={(e) => setUsername(e.currentTarget.value)} autofocus /></label>
        <label>Password<input name="password" type="password" autocomplete="current-password" value={password}
                              onInput={(e) => setPassword(e.currentTarget.value)} /></label>
        <button type="submit" class="primary" disabled={busy || !username}>Sign in</button>
        {error && <div class="error-message login-error" role="alert">{error}</div>}
      </form>
    </div>
  );
}
