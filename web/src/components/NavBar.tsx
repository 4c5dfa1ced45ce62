// The top bar: the pages and the signed-in user with a sign-out button.
import type { User } from "../api";
import { href, type Route } from "../router";

interface Props {
  route: Route;
  user: User;
  onLogout: () => void;
}

export function NavBar({ route, user, onLogout }: Props) {
  const link = (target: string, label: string, pages: Route["page"][]) => (
    <a href={target} class={pages.includes(route.page) ? "active" : ""}>{label}</a>
  );
  return (
    <nav class="navbar">
      <span class="brand">Volador</span>
      {link(href.experiments(), "Experiments", ["experiments", "experiment", "trial"])}
      {link(href.newExperiment(), "New experiment", ["new-experiment"])}
      {link(href.cluster(), "Cluster", ["cluster"])}
      {user.admin && link(href.users(), "Users", ["users"])}
      <span class="spacer" />
      <span class="user">{user.name}{user.admin && " (admin)"}</span>
      <button type="button" class="logout" onClick={onLogout}>Sign out</button>
    </nav>
  );
}
