import { type Quota, quotaSchema } from "@llmgw/domain";
import { jsonb, onlyRow, type Queryable } from "../db";

export interface Quotas {
  list(): Promise<Quota[]>;
  get(owner: string): Promise<Quota | null>;
  /** Sets an owner's limits (an admin's PUT). */
  put(quota: Quota): Promise<Quota>;
  /** Inserts the owners that have no row yet and returns those: configured quotas are starting values. */
  seed(quotas: readonly Quota[]): Promise<Quota[]>;
}

type QuotaRow = {
  owner: string;
  memory_gb: number | null;
  cpu_cores: number | null;
  gpus: number | null;
  replicas: number | null;
};
const COLUMNS = "owner, memory_gb, cpu_cores, gpus, replicas";
const toQuota = (row: QuotaRow): Quota =>
  quotaSchema.parse({
    owner: row.owner,
    memoryGB: row.memory_gb,
    cpuCores: row.cpu_cores,
    gpus: row.gpus,
    replicas: row.replicas,
  });

export function quotas(sql: Queryable): Quotas {
  return {
    async list() {
      return (await sql.query<QuotaRow>(`select ${COLUMNS} from quotas order by owner`)).map(toQuota);
    },

    async get(owner) {
      const [row] = await sql.query<QuotaRow>(`select ${COLUMNS} from quotas where owner = $1`, [owner]);
      return row === undefined ? null : toQuota(row);
    },

    async put(q) {
      const rows = await sql.query<QuotaRow>(
        `insert into quotas (${COLUMNS}) values ($1, $2, $3, $4, $5)
         on conflict (owner) do update set memory_gb = excluded.memory_gb,
           cpu_cores = excluded.cpu_cores, gpus = excluded.gpus, replicas = excluded.replicas
         returning ${COLUMNS}`,
        [q.owner, q.memoryGB, q.cpuCores, q.gpus, q.replicas],
      );
      return toQuota(onlyRow(rows, `put of quota ${q.owner}`));
    },

    async seed(list) {
      const rows = await sql.query<QuotaRow>(
        `insert into quotas (${COLUMNS})
         select q->>'owner', (q->>'memoryGB')::int, (q->>'cpuCores')::int, (q->>'gpus')::int,
                (q->>'replicas')::int
         from jsonb_array_elements($1::jsonb) q
         on conflict (owner) do nothing
         returning ${COLUMNS}`,
        [jsonb(list)],
      );
      return rows.map(toQuota);
    },
  };
}
