import { roleSchema, type TokenCreate, tokenCreateSchema } from "@llmgw/contract";
import { z } from "zod";

/**
 * The create form is `POST /tokens`'s own schema (`tokenCreateSchema`), fed from the fields as a
 * person fills them: models as one comma-separated line, blanks for "none". Fields of another role
 * than the one chosen are dropped before the check, as the form hides them.
 */
export const tokenFormSchema = z
  .object({
    name: z.string(),
    role: roleSchema,
    node: z.string(),
    models: z.string(),
    requestsPerMinute: z.number().nullable(),
    concurrency: z.number().nullable(),
    tokensPerDay: z.number().nullable(),
  })
  .transform(({ name, role, node, models, requestsPerMinute, concurrency, tokensPerDay }) => {
    const input: z.input<typeof tokenCreateSchema> = { name: name.trim(), role };
    if (role === "agent" && node.trim() !== "") input.node = node.trim();
    if (role === "client") {
      const listed = models
        .split(",")
        .map((m) => m.trim())
        .filter((m) => m !== "");
      if (listed.length > 0) input.models = listed;
      if (requestsPerMinute !== null) input.requestsPerMinute = requestsPerMinute;
      if (concurrency !== null) input.concurrency = concurrency;
      if (tokensPerDay !== null) input.tokensPerDay = tokensPerDay;
    }
    return input;
  })
  .pipe(tokenCreateSchema);

export type TokenFormInput = z.input<typeof tokenFormSchema>;
export type TokenFormOutput = TokenCreate;
export type TokenField = keyof TokenFormInput;
const FIELDS: readonly TokenField[] = [
  "name",
  "role",
  "node",
  "models",
  "requestsPerMinute",
  "concurrency",
  "tokensPerDay",
];

export const EMPTY_FORM: TokenFormInput = {
  name: "",
  role: "viewer",
  node: "",
  models: "",
  requestsPerMinute: null,
  concurrency: null,
  tokensPerDay: null,
};

export const ROLE_CHOICES = [
  { role: "viewer", what: "reads everything" },
  { role: "operator", what: "runs the catalogue and serving" },
  { role: "admin", what: "also quotas, classes and tokens" },
  { role: "agent", what: "an agent on one node: heartbeats and the mirror's files" },
  { role: "client", what: "an application: the request path (/v1) only, within its limits" },
] as const satisfies readonly { role: TokenCreate["role"]; what: string }[];

/**
 * A server's field error on the form's field. `models.3` is the fourth name in the line: the
 * message says which.
 */
export function formErrorOf(path: string, message: string, input: TokenFormOutput | null) {
  const [head = "", index] = path.split(".");
  const field = FIELDS.find((f) => f === head);
  if (field === undefined) return null;
  const which = field === "models" && index !== undefined ? input?.models?.[Number(index)] : undefined;
  return { field, message: which === undefined ? message : `"${which}": ${message}` };
}

/** A client token's limits in a few words: "60 a minute, 4 at once", or "none". */
export function limitsText(t: {
  requestsPerMinute: number | null;
  concurrency: number | null;
  tokensPerDay?: number | null;
}): string {
  const limits = [
    ...(t.requestsPerMinute === null ? [] : [`${t.requestsPerMinute} a minute`]),
    ...(t.concurrency === null ? [] : [`${t.concurrency} at once`]),
    ...(t.tokensPerDay == null ? [] : [`${t.tokensPerDay.toLocaleString("en-US")} tokens a day`]),
  ];
  return limits.length > 0 ? limits.join(", ") : "none";
}

/** A budget's day in words: "19,850 of 20,000 tokens used today (99%)". */
export function budgetText(used: number, perDay: number): string {
  const percent = Math.min(100, Math.round((used / perDay) * 100));
  return `${used.toLocaleString("en-US")} of ${perDay.toLocaleString("en-US")} tokens used today (${percent}%)`;
}
