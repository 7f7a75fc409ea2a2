import { type MirrorVersion, mirrorVersionSchema } from "@llmgw/domain";
import { jsonb, onlyRow, type Queryable } from "../db";

export interface Mirror {
  list(): Promise<MirrorVersion[]>;
  put(version: MirrorVersion): Promise<MirrorVersion>;
  remove(model: string, version: string): Promise<boolean>;
}

type DocRow = { doc: unknown };
const toVersion = (row: DocRow): MirrorVersion => mirrorVersionSchema.parse(row.doc);

export function mirror(sql: Queryable): Mirror {
  return {
    async list() {
      const rows = await sql.query<DocRow>("select doc from mirror_versions order by model, version");
      return rows.map(toVersion);
    },

    async put(input) {
      const v = mirrorVersionSchema.parse(input);
      const rows = await sql.query<DocRow>(
        `insert into mirror_versions (model, version, doc) values ($1, $2, $3::jsonb)
         on conflict (model, version) do update set doc = excluded.doc
         returning doc`,
        [v.model, v.version, jsonb(v)],
      );
      return toVersion(onlyRow(rows, `put of mirror version ${v.model}/${v.version}`));
    },

    async remove(model, version) {
      const rows = await sql.query(
        "delete from mirror_versions where model = $1 and version = $2 returning model",
        [model, version],
      );
      return rows.length > 0;
    },
  };
}
