import { isDecisionKind, type CreatorState, type DecisionKind } from "../commissions/creator-standing";
import { saveCreatorProfile, type SaveProfileResult } from "../commissions/creator-profiles.server";
import { decideCreator, undoDecision } from "./decisions.server";

// What the Creators page posts: a decision on a creator (release, reverse, block) on the
// standing's version the page showed, undoing the latest decision, or a creator's details (the
// profile modal, which sends no intent). `by` is the staff member from the session token.

export type CreatorsAnswer =
  | ({ intent: "profile" } & SaveProfileResult)
  | {
      intent: "decide";
      ok: true;
      creatorId: string;
      kind: DecisionKind;
      state: CreatorState;
      moved: number;
      reversed: number;
    }
  | { intent: "decide"; ok: false; creatorId: string; error: "bad-request" | "not-found" | "changed" | "not-decidable" }
  | { intent: "undo"; ok: true; state: CreatorState; restored: number }
  | {
      intent: "undo";
      ok: false;
      error: "bad-request" | "not-found" | "undone" | "not-latest" | "paid-since";
      paid?: number;
    };

const ERROR_STATUS: Record<string, number> = { "bad-request": 400, "not-found": 404 };

export async function creatorsAction(
  shop: string,
  form: FormData,
  by: string | null,
  now: Date = new Date(),
): Promise<{ answer: CreatorsAnswer; status: number }> {
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : "";
  };
  const answered = (answer: CreatorsAnswer) => ({
    answer,
    status: answer.ok ? 200 : (ERROR_STATUS[answer.intent === "profile" ? "bad-request" : answer.error] ?? 409),
  });
  const intent = text("intent");
  if (intent === "decide") {
    const creatorId = text("creatorId").trim();
    const kind = text("kind");
    const version = Number(text("version"));
    if (!creatorId || creatorId.length > 200 || !isDecisionKind(kind) || !Number.isSafeInteger(version))
      return answered({ intent: "decide", ok: false, creatorId, error: "bad-request" });
    const result = await decideCreator(shop, creatorId, { kind, version, by }, now);
    return answered(
      result.ok
        ? {
            intent: "decide",
            ok: true,
            creatorId,
            kind,
            state: result.state,
            moved: result.moved,
            reversed: result.reversed,
          }
        : { intent: "decide", ok: false, creatorId, error: result.error },
    );
  }
  if (intent === "undo") {
    const decisionId = text("decisionId").trim();
    if (!decisionId || decisionId.length > 200) return answered({ intent: "undo", ok: false, error: "bad-request" });
    const result = await undoDecision(shop, decisionId, by, now);
    return answered(
      result.ok
        ? { intent: "undo", ok: true, state: result.state, restored: result.restored }
        : {
            intent: "undo",
            ok: false,
            error: result.error,
            ...(result.paid === undefined ? {} : { paid: result.paid }),
          },
    );
  }
  const saved = await saveCreatorProfile(shop, {
    creatorId: text("creatorId"),
    name: text("name"),
    email: text("email"),
    note: text("note"),
  });
  return answered({ intent: "profile", ...saved });
}
