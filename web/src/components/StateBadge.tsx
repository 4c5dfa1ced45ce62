// An experiment's or trial's state as a coloured badge.
export function StateBadge({ state }: { state: string }) {
  return <span class={`state state-${state.toLowerCase()}`}>{state}</span>;
}
