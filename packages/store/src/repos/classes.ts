import { type Class, classSchema, DEFAULT_CLASSES } from "@llmgw/domain";
import { jsonb, onlyRow, type Queryable } from "../db";

export interface Classes {
  /** Highest rank first. */
  list(): Promise<Class[]>;
  put(cls: Class): Promise<Class>;
  /**
   * Inserts the classes that have no row yet (configured classes are starting values); when that
   * leaves no class at all, inserts DEFAULT_CLASSES. Returns what it inserted.
   */
  seed(classes?: readonly Class[]): Promise<Class[]>;
}

type ClassRow = { name: string; rank: number; description: string };
const toClass = (row: ClassRow): Class => classSchema.parse(row);

const INSERT_ABSENT = `
  insert into classes (name, rank, description)
  select c->>'name', (c->>'rank')::int, coalesce(c->>'description', '')
  from jsonb_array_elements($1::jsonb) c
  on conflict (name) do nothing
  returning name, rank, description`;

export function classes(sql: Queryable): Classes {
  return {
    async list() {
      const rows = await sql.query<ClassRow>(
        "select name, rank, description from classes order by rank desc, name",
      );
      return rows.map(toClass);
    },

    async put(cls) {
      const rows = await sql.query<ClassRow>(
        `insert into classes (name, rank, description) values ($1, $2, $3)
         on conflict (name) do update set rank = excluded.rank, description = excluded.description
         returning name, rank, description`,
        [cls.name, cls.rank, cls.description],
      );
      return toClass(onlyRow(rows, `put of class ${cls.name}`));
    },

    seed: (list = []) =>
      sql.transaction(async (tx) => {
        const inserted = await tx.query<ClassRow>(INSERT_ABSENT, [jsonb(list)]);
        const [any] = await tx.query("select 1 from classes limit 1");
        if (any !== undefined) return inserted.map(toClass);
        return (await tx.query<ClassRow>(INSERT_ABSENT, [jsonb(DEFAULT_CLASSES)])).map(toClass);
      }),
  };
}
