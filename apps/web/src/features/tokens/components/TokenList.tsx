import type { TokenView } from "@llmgw/contract";
import { HeadRow } from "../../../components/HeadRow";
import { Empty } from "../../../components/Status";
import { TableScroll } from "../../../components/TableScroll";
import { dateTime } from "../../../lib/units";
import { budgetText, limitsText } from "../token-form";
import { RevokeToken } from "./RevokeToken";

/** As the audit log writes a time, so the two pages read alike. */
const when = (iso: string | null) => (iso === null ? "—" : dateTime(iso));

/** What a token is for beyond its role: an agent's node, a client's models and limits. */
function scopeOf(t: TokenView): string {
  if (t.role === "agent") return t.node === null ? "node: bound on its first heartbeat" : `node: ${t.node}`;
  if (t.role !== "client") return "—";
  const models = t.models === null ? "every model" : t.models.join(", ");
  return `${models}; limits: ${limitsText(t)}`;
}

/** SPEC §12.3: a client token's day of budget as a bar, the engines' reported tokens against it. */
function BudgetBar({ token }: { token: TokenView }) {
  const perDay = token.tokensPerDay;
  if (token.role !== "client" || perDay === null) return null;
  const used = token.tokensUsedToday ?? 0;
  return (
    <div className="budget" data-testid={`token-budget-${token.name}`}>
      <meter
        min={0}
        max={perDay}
        value={Math.min(used, perDay)}
        high={perDay * 0.9}
        optimum={0}
        aria-label={`Tokens used today by ${token.name}, of its budget`}
      />{" "}
      <span>{budgetText(used, perDay)}</span>
    </div>
  );
}

export function TokenList({ tokens }: { tokens: TokenView[] }) {
  if (tokens.length === 0) return <Empty>No tokens: the server accepts every request on loopback.</Empty>;
  return (
    <TableScroll label="Tokens">
      <table data-testid="token-table">
        <HeadRow columns={["Name", "Role", "For", "Created", "Last used"]}>
          <th scope="col">
            <span className="visually-hidden">Revoke</span>
          </th>
        </HeadRow>
        <tbody>
          {tokens.map((t) => (
            <tr key={t.name} data-testid={`token-row-${t.name}`}>
              <th scope="row">{t.name}</th>
              <td>{t.role}</td>
              <td>
                {scopeOf(t)}
                <BudgetBar token={t} />
              </td>
              <td>
                {t.origin === "config" ? "llmgw.yaml" : `${when(t.createdAt)} by ${t.createdBy ?? "—"}`}
              </td>
              <td>{t.lastUsedAt === null ? "never" : when(t.lastUsedAt)}</td>
              <td>
                {t.origin === "config" ? (
                  <span title="remove it from llmgw.yaml and restart">read-only</span>
                ) : (
                  <RevokeToken name={t.name} />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
