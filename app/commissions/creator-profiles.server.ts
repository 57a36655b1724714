import { Prisma } from "@prisma/client";
import { z } from "zod";
import { sql, upsertRow } from "../database/sql.server";
import { t } from "../i18n";
import { CreatorProfile } from "../database/tables";

// What the merchant calls each creator id: a name, an email and a note, per shop. Creator ids
// come from the click service and mean nothing to a person; every page and export that names a
// creator reads their profile here, in one query per page (not one per row).

export interface CreatorProfileView {
  creatorId: string;
  name: string;
  email: string;
  note: string;
}

/** The shop's profiles for these creator ids (ids without one are absent from the map). */
export async function creatorProfiles(
  shop: string,
  creatorIds: Iterable<string>,
): Promise<Map<string, CreatorProfileView>> {
  const ids = [...new Set(creatorIds)];
  const found = new Map<string, CreatorProfileView>();
  // Batched so a long page stays under both databases' limits on parameters.
  for (let at = 0; at < ids.length; at += 1_000) {
    const rows = await sql.rows<CreatorProfileView>(Prisma.sql`
      SELECT ${CreatorProfile.columns("creatorId", "name", "email", "note")} FROM ${CreatorProfile}
      WHERE ${CreatorProfile.shop} = ${shop} AND ${CreatorProfile.creatorId} IN (${Prisma.join(ids.slice(at, at + 1_000))})`);
    for (const row of rows) found.set(row.creatorId, row);
  }
  return found;
}

/** Names only, as the pages send them to the browser: `{ [creatorId]: name }`, named creators only. */
export async function creatorNames(shop: string, creatorIds: Iterable<string>): Promise<Record<string, string>> {
  const names: Record<string, string> = {};
  for (const [id, profile] of await creatorProfiles(shop, creatorIds)) if (profile.name) names[id] = profile.name;
  return names;
}

// Control characters would break the CSV's rows and hide text on the page; the note may span lines.
const NO_CONTROL = /^\P{Cc}*$/u;
const oneLine = (text: string) => NO_CONTROL.test(text);
const lines = (text: string) => NO_CONTROL.test(text.replace(/\r?\n/g, ""));

const ProfileForm = z.object({
  creatorId: z
    .string()
    .trim()
    .min(1, { error: () => t("creators.profileIdMissing") })
    .max(200, { error: () => t("creators.profileIdMissing") })
    .refine(oneLine, { error: () => t("creators.profileIdMissing") }),
  name: z
    .string()
    .trim()
    .max(120, { error: () => t("creators.profileNameTooLong") })
    .refine(oneLine, { error: () => t("creators.profileNameControl") }),
  email: z
    .string()
    .trim()
    .max(254, { error: () => t("creators.profileEmailInvalid") })
    .refine((email) => email === "" || z.string().email().safeParse(email).success, {
      error: () => t("creators.profileEmailInvalid"),
    }),
  note: z
    .string()
    .trim()
    .max(1_000, { error: () => t("creators.profileNoteTooLong") })
    .refine(lines, { error: () => t("creators.profileNoteControl") }),
});

export type SaveProfileResult =
  | { ok: true; profile: CreatorProfileView }
  | { ok: false; creatorId: string; errors: Partial<Record<keyof CreatorProfileView, string>> };

/** Saves (or replaces) one creator's profile; all three fields empty removes it. */
export async function saveCreatorProfile(
  shop: string,
  input: { creatorId: string; name: string; email: string; note: string },
  now: Date = new Date(),
): Promise<SaveProfileResult> {
  const parsed = ProfileForm.safeParse(input);
  if (!parsed.success) {
    const errors: Partial<Record<keyof CreatorProfileView, string>> = {};
    for (const issue of parsed.error.issues) errors[issue.path[0] as keyof CreatorProfileView] ??= issue.message;
    return { ok: false, creatorId: input.creatorId, errors };
  }
  const profile = parsed.data;
  if (!profile.name && !profile.email && !profile.note) {
    await sql.execute(
      Prisma.sql`DELETE FROM ${CreatorProfile} WHERE ${CreatorProfile.shop} = ${shop} AND ${CreatorProfile.creatorId} = ${profile.creatorId}`,
    );
    return { ok: true, profile };
  }
  // One statement, so two saves at once leave one row (the later one's), never a unique violation.
  await upsertRow(sql, "CreatorProfile", ["shop", "creatorId"], { shop, ...profile, updatedAt: now }, [
    "name",
    "email",
    "note",
    "updatedAt",
  ]);
  return { ok: true, profile };
}
