// What a client (the dashboard, `llmgw ctl`, the agent, the bench) makes of a refused request. The
// API answers errors as `{ error: { code, message, fields? } }` (SPEC §3), the request path in
// OpenAI's `{ error: { code, message } }`; a proxy in between may answer anything, so this reads
// the shape leniently and always gives a message to show.

export type Refusal = {
  status: number;
  /** The API's error code, or null when the body does not carry one. */
  code: string | null;
  message: string;
  /** Field path → message, for forms. */
  fields: Record<string, string>;
  /** The body as sent: parsed JSON, else its text, else null when empty. */
  body: unknown;
};

/** A refused response's status and body text, as a Refusal. */
export function refusalOf(status: number, text: string): Refusal {
  const body = parsed(text);
  const error = isRecord(body) && isRecord(body.error) ? body.error : null;
  // fromEntries defines own keys: a field the server names `__proto__` (a stray key it refused) is
  // kept, where assigning it would have set the object's prototype instead.
  const fields: Record<string, string> = Object.fromEntries(
    Object.entries(isRecord(error?.fields) ? error.fields : {}).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    ),
  );
  return {
    status,
    code: typeof error?.code === "string" ? error.code : null,
    message: typeof error?.message === "string" ? error.message : `the server answered ${status}`,
    fields,
    body,
  };
}

function parsed(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
