import type { Profile, Replica } from "@llmgw/domain";
import { counted, profilesByPriority } from "@llmgw/domain";

/**
 * A model of several profiles (SPEC §2.6): how many of its replicas run with each, in the order
 * placement tries them. A model of one profile shows nothing: every replica is of that one.
 */
export function ProfileReplicas({ model }: { model: { profiles: Profile[]; replicas: Replica[] } }) {
  if (model.profiles.length < 2) return null;
  return (
    <ul className="profile-replicas" data-testid="profile-replicas" aria-label="Replicas per profile">
      {profilesByPriority(model).map((p) => {
        const mine = model.replicas.filter((r) => r.profile === p.name);
        const ready = mine.filter((r) => r.state === "ready").length;
        return (
          <li key={p.name} data-testid={`profile-${p.name}`}>
            <span className="name">{p.name}</span>{" "}
            <span className="muted">
              ({p.engine}, priority {p.priority})
            </span>
            : {counted(mine.length, "replica")}, {ready} ready
          </li>
        );
      })}
    </ul>
  );
}
