// Hash routes of the UI (#/experiments/7, ...): parsing and a hook that
// re-renders on navigation.
import { useEffect, useState } from "preact/hooks";

export type Route =
  | { page: "login" }
  | { page: "experiments" }
  | { page: "new-experiment" }
  | { page: "experiment"; id: number }
  | { page: "trial"; id: number }
  | { page: "cluster" }
  | { page: "users" }
  | { page: "not-found"; path: string };

/** The route a location hash names; "" and "#/" are the experiment list. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, "").replace(/\/+$/, "") || "/experiments";
  const parts = path.split("/").filter(Boolean);
  const id = Number(parts[1]);
  const numbered = parts.length === 2 && Number.isInteger(id) && id > 0;
  if (path === "/login") return { page: "login" };
  if (path === "/experiments") return { page: "experiments" };
  if (path === "/experiments/new") return { page: "new-experiment" };
  if (path === "/cluster") return { page: "cluster" };
  if (path === "/users") return { page: "users" };
  if (parts[0] === "experiments" && numbered) return { page: "experiment", id };
  if (parts[0] === "trials" && numbered) return { page: "trial", id };
  return { page: "not-found", path };
}

export const href = {
  experiments: () => "#/experiments",
  newExperiment: () => "#/experiments/new",
  experiment: (id: number) => `#/experiments/${id}`,
  trial: (id: number) => `#/trials/${id}`,
  cluster: () => "#/cluster",
  users: () => "#/users",
  login: () => "#/login",
};

export function navigate(target: string): void {
  window.location.hash = target;
}

/** The current route, updated on every hash change. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", update);
    return () => window.removeEventListener("hashchange", update);
  }, []);
  return route;
}
