import type { Prisma } from "@prisma/client";
import { scalarFieldTypes } from "./prisma-internals.server";

// Rows as the drivers give them, read into the shapes the client returns: times as Dates,
// SQLite's 0 and 1 as booleans, bigints as bigints.

/** A time read back: a Date (the client), Unix milliseconds (SQLite), or ISO text (either driver). */
export function readDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === "number" || typeof value === "bigint") return new Date(Number(value));
  const text = String(value);
  return new Date(/^-?\d+$/.test(text) ? Number(text) : text);
}

/** A boolean read back: SQLite keeps 0 and 1. */
export function readBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === 1n || value === "1" || value === "true";
}

export type ModelName = Prisma.ModelName;
type FieldTypes = Map<string, string>;
const fieldTypes = new Map<ModelName, FieldTypes>();

function typesOf(model: ModelName): FieldTypes {
  let types = fieldTypes.get(model);
  if (!types) {
    types = scalarFieldTypes(model);
    fieldTypes.set(model, types);
  }
  return types;
}

function readField(type: string | undefined, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "DateTime":
      return readDate(value);
    case "Boolean":
      return readBoolean(value);
    case "Int":
    case "Float":
      return Number(value);
    case "BigInt":
      return BigInt(value as string | number | bigint);
    default:
      return value;
  }
}

/** Raw rows of a model's table in the shape the client returns them (Dates, booleans, bigints). */
export function modelRows<T>(model: ModelName, rows: Record<string, unknown>[]): T[] {
  const types = typesOf(model);
  return rows.map(
    (row) => Object.fromEntries(Object.entries(row).map(([name, v]) => [name, readField(types.get(name), v)])) as T,
  );
}
