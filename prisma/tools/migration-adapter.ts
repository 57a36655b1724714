import { PrismaPg } from "@prisma/adapter-pg";
import { databaseAdapter } from "../../app/database/connect.server";

// The driver adapter Prisma's CLI migrates through (prisma.config.ts): the app's own, with two
// repairs that only migrations need, both for @prisma/adapter-pg 6.19.
//
// - Prisma's schema engine reads PostgreSQL's catalogs, whose `name` columns the adapter has no
//   mapping for ("Column type 'name' could not be deserialized", prisma/orm#27403). A `name` is
//   text of at most 63 bytes, and pg already hands it over as a string: it is reported as text.
// - The adapter runs a migration script by splitting it at every ";", which breaks PL/pgSQL
//   bodies (the rollup triggers). PostgreSQL runs a whole multi-statement script itself, in one
//   implicit transaction, when it arrives as one simple query; so the script is sent that way.

const NAME = 19;
const TEXT = 25;

interface Field {
  dataTypeID: number;
}
interface Patchable {
  performIO(query: unknown): Promise<{ fields: Field[] }>;
  executeScript(script: string): Promise<void>;
  underlyingDriver(): { query(sql: string): Promise<unknown> };
  onError(error: unknown): never;
}

function repair<T>(adapter: T): T {
  const target = adapter as unknown as Patchable;
  const performIO = target.performIO.bind(target);
  target.performIO = async (query) => {
    const result = await performIO(query);
    for (const field of result.fields) if (field.dataTypeID === NAME) field.dataTypeID = TEXT;
    return result;
  };
  target.executeScript = async (script) => {
    try {
      await target.underlyingDriver().query(script);
    } catch (error) {
      target.onError(error);
    }
  };
  return adapter;
}

export function migrationAdapter(url: string) {
  const factory = databaseAdapter(url);
  if (factory instanceof PrismaPg) {
    const connect = factory.connect.bind(factory);
    const connectToShadowDb = factory.connectToShadowDb.bind(factory);
    factory.connect = async () => repair(await connect());
    factory.connectToShadowDb = async () => repair(await connectToShadowDb());
  }
  return factory;
}
