// The application: who is signed in (asked of the master at start; a 401
// from any call returns to the login page) and the page the route names.
import { useEffect, useState } from "preact/hooks";

import { api, setUnauthorizedHandler, type User } from "../api";
import { href, navigate, useRoute, type Route } from "../router";
import { ClusterPage } from "./ClusterPage";
import { ExperimentListPage } from "./ExperimentListPage";
import { ExperimentPage } from "./ExperimentPage";
import { LoginPage } from "./LoginPage";
import { NavBar } from "./NavBar";
import { NewExperimentPage } from "./NewExperimentPage";
import { TrialPage } from "./TrialPage";
import { UsersPage } from "./UsersPage";

function page(route: Route) {
  switch (route.page) {
    case "experiments": return <ExperimentListPage />;
    case "new-experiment": return <NewExperimentPage />;
    case "experiment": return <ExperimentPage id={route.id} key={route.id} />;
    case "trial": return <TrialPage id={route.id} key={route.id} />;
    case "cluster": return <ClusterPage />;
    case "users": return <UsersPage />;
    case "login": return null;
    case "not-found": return <div class="page"><h1>Not found</h1><p>No page at {route.path}.</p></div>;
  }
}

export function App() {
  const route = useRoute();
  const [user, setUser] = useState<User | null | undefined>(undefined);

  useEffect(() => {
    setUnauthorizedHandler(() => setUser(null));
    api.me().then(setUser, () => setUser(null));
  }, []);

  if (user === undefined) return <div class="page">Loading…</div>;
  if (user === null) {
    return <LoginPage onLogin={(u) => { setUser(u); if (route.page === "login") navigate(href.experiments()); }} />;
  }
  // Signing out leaves the page (the next user starts at the list); an expired session keeps it.
  const logout = () => { api.logout().finally(() => { navigate(href.experiments()); setUser(null); }); };
  return (
    <>
      <NavBar route={route} user={user} onLogout={logout} />
      <main>{route.page === "login" ? <ExperimentListPage /> : page(route)}</main>
    </>
  );
}
