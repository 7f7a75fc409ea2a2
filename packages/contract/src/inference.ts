import { z } from "zod";
import { route } from "./route";

// The request path (SPEC §7), outside /api: OpenAI's own shapes, passed through to the engines, so
// only what llmgw reads or makes is described. Its refusals are OpenAI's error shape.

/**
 * The model an inference request names: a catalogue name or alias, never empty. The gateway checks
 * what it finds in a body with this same schema (it reads only the fields routing needs).
 */
export const modelReferenceSchema = z
  .string({ error: "the body names no model: send `model`, a model's name or alias" })
  .min(1, "the body names no model: send `model`, a model's name or alias");

/** What the gateway reads of a request: the model it names; the rest goes to the engine as it is. */
export const inferenceRequestSchema = z.looseObject({
  model: modelReferenceSchema,
  stream: z.boolean().optional(),
});

/** A catalogue model as OpenAI's `GET /v1/models` lists it, with its aliases under `llmgw`. */
export const openAiModelSchema = z.object({
  id: z.string(),
  object: z.literal("model"),
  created: z.number().int(),
  owned_by: z.string(),
  llmgw: z.object({ aliases: z.array(z.string()) }),
});
export type OpenAiModel = z.infer<typeof openAiModelSchema>;

export const openAiModelListSchema = z.object({
  object: z.literal("list"),
  data: z.array(openAiModelSchema),
});

/** OpenAI's refusal shape, which the request path answers in. */
export const openAiErrorSchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    code: z.string().nullable(),
    param: z.string().nullable(),
  }),
});

const REFUSALS = [400, 404, 413, 429, 502, 503, 504] as const;

const routed = (path: string, summary: string) =>
  ({
    method: "POST",
    path,
    need: "inference",
    summary,
    body: inferenceRequestSchema,
    checkedByHandler: true,
    ok: {
      status: 200,
      description: "the engine's answer, passed through (an event stream when `stream` is true)",
      passedOn: z.record(z.string(), z.unknown()),
    },
    refusals: REFUSALS,
    root: true,
  }) as const;

export const inference = {
  models: route({
    method: "GET",
    path: "/v1/models",
    need: "inference",
    summary: "every catalogue model not stopped, in OpenAI's list shape",
    ok: { status: 200, description: "the models", schema: openAiModelListSchema },
    refusals: [],
    root: true,
  }),
  model: route({
    method: "GET",
    path: "/v1/models/:model",
    need: "inference",
    summary: "one model by name or alias",
    ok: { status: 200, description: "the model", schema: openAiModelSchema },
    refusals: [404],
    root: true,
  }),
  chat: route(
    routed("/v1/chat/completions", "OpenAI chat completions, routed to a ready replica of `model`"),
  ),
  completions: route(routed("/v1/completions", "OpenAI completions, routed to a ready replica of `model`")),
  embeddings: route(routed("/v1/embeddings", "OpenAI embeddings, routed to a ready replica of `model`")),
  other: route(routed("/v1/*", "any other POST whose JSON body names a `model`, routed the same way")),
  notFound: route({
    method: "ALL",
    path: "/v1/*",
    need: "inference",
    summary: "no such endpoint",
    ok: { status: 200, description: "never: a 404" },
    refusals: [404],
    root: true,
    fallback: true,
  }),
} as const;
