import { Prisma } from "@prisma/client";

// Every table and column a statement names, checked by the compiler (decision 038). A statement
// writes `${Verification.clickId}` where it wrote `"clickId"`: the same text reaches the database
// (so the same prepared statement), but a column renamed or dropped in prisma/schema.prisma is a
// type error at every statement that names it. The names come from the Prisma client generated
// from that schema (its ScalarFieldEnum objects), so there is no second list to keep in step.

const COLUMNS = {
  Session: Prisma.SessionScalarFieldEnum,
  ShopSettings: Prisma.ShopSettingsScalarFieldEnum,
  ShopReconciliation: Prisma.ShopReconciliationScalarFieldEnum,
  WebhookDelivery: Prisma.WebhookDeliveryScalarFieldEnum,
  Verification: Prisma.VerificationScalarFieldEnum,
  LandingTouch: Prisma.LandingTouchScalarFieldEnum,
  PixelSighting: Prisma.PixelSightingScalarFieldEnum,
  ClickRecord: Prisma.ClickRecordScalarFieldEnum,
  Job: Prisma.JobScalarFieldEnum,
  VerificationAttempt: Prisma.VerificationAttemptScalarFieldEnum,
  Commission: Prisma.CommissionScalarFieldEnum,
  CommissionEntry: Prisma.CommissionEntryScalarFieldEnum,
  OrderEvent: Prisma.OrderEventScalarFieldEnum,
  Payout: Prisma.PayoutScalarFieldEnum,
  PayoutLine: Prisma.PayoutLineScalarFieldEnum,
  DataRequest: Prisma.DataRequestScalarFieldEnum,
  LifecycleEvent: Prisma.LifecycleEventScalarFieldEnum,
  CommissionDay: Prisma.CommissionDayScalarFieldEnum,
  VerificationHour: Prisma.VerificationHourScalarFieldEnum,
  CommissionCreator: Prisma.CommissionCreatorScalarFieldEnum,
  OrderDiscountCode: Prisma.OrderDiscountCodeScalarFieldEnum,
  CodeDeactivation: Prisma.CodeDeactivationScalarFieldEnum,
  CreatorProfile: Prisma.CreatorProfileScalarFieldEnum,
  CreatorClaim: Prisma.CreatorClaimScalarFieldEnum,
  CreatorStanding: Prisma.CreatorStandingScalarFieldEnum,
  CreatorDecision: Prisma.CreatorDecisionScalarFieldEnum,
  ShopProfile: Prisma.ShopProfileScalarFieldEnum,
  ShopLanguage: Prisma.ShopLanguageScalarFieldEnum,
  PayoutRun: Prisma.PayoutRunScalarFieldEnum,
  PayoutSettings: Prisma.PayoutSettingsScalarFieldEnum,
  CreatorPayoutMethod: Prisma.CreatorPayoutMethodScalarFieldEnum,
  PaypalEvent: Prisma.PaypalEventScalarFieldEnum,
  PayoutSchedule: Prisma.PayoutScheduleScalarFieldEnum,
  PayoutSchedulePeriod: Prisma.PayoutSchedulePeriodScalarFieldEnum,
} satisfies Record<Prisma.ModelName, Record<string, string>>;

export type TableName = keyof typeof COLUMNS;
export type ColumnOf<T extends TableName> = keyof (typeof COLUMNS)[T] & string;

/** A table's quoted name as a SQL fragment, with each of its columns' quoted names. */
export type Table<T extends TableName> = Prisma.Sql & { readonly [C in ColumnOf<T>]: Prisma.Sql } & {
  readonly tableName: T;
  /** Some of its columns' names, comma-separated: `"a", "b", "c"`. */
  columns(...names: ColumnOf<T>[]): Prisma.Sql;
};

/** A table's or column's name in SQL, quoted (PostgreSQL folds unquoted names to lower case). */
export function quoted(name: string): Prisma.Sql {
  return Prisma.raw(`"${name}"`);
}

function tableOf<T extends TableName>(name: T): Table<T> {
  const columns = Object.fromEntries(Object.keys(COLUMNS[name]).map((column) => [column, quoted(column)]));
  const list = (...names: string[]) => Prisma.join(names.map(quoted), ", ");
  return Object.assign(quoted(name), columns, { tableName: name, columns: list }) as Table<T>;
}

export const Session = tableOf("Session");
export const ShopSettings = tableOf("ShopSettings");
export const ShopReconciliation = tableOf("ShopReconciliation");
export const WebhookDelivery = tableOf("WebhookDelivery");
export const Verification = tableOf("Verification");
export const LandingTouch = tableOf("LandingTouch");
export const PixelSighting = tableOf("PixelSighting");
export const ClickRecord = tableOf("ClickRecord");
export const Job = tableOf("Job");
export const VerificationAttempt = tableOf("VerificationAttempt");
export const Commission = tableOf("Commission");
export const CommissionEntry = tableOf("CommissionEntry");
export const OrderEvent = tableOf("OrderEvent");
export const Payout = tableOf("Payout");
export const PayoutLine = tableOf("PayoutLine");
export const DataRequest = tableOf("DataRequest");
export const LifecycleEvent = tableOf("LifecycleEvent");
export const CommissionDay = tableOf("CommissionDay");
export const VerificationHour = tableOf("VerificationHour");
export const CommissionCreator = tableOf("CommissionCreator");
export const OrderDiscountCode = tableOf("OrderDiscountCode");
export const CodeDeactivation = tableOf("CodeDeactivation");
export const CreatorProfile = tableOf("CreatorProfile");
export const CreatorClaim = tableOf("CreatorClaim");
export const CreatorStanding = tableOf("CreatorStanding");
export const CreatorDecision = tableOf("CreatorDecision");
export const ShopProfile = tableOf("ShopProfile");
export const ShopLanguage = tableOf("ShopLanguage");
export const PayoutRun = tableOf("PayoutRun");
export const PayoutSettings = tableOf("PayoutSettings");
export const CreatorPayoutMethod = tableOf("CreatorPayoutMethod");
export const PaypalEvent = tableOf("PaypalEvent");
export const PayoutSchedule = tableOf("PayoutSchedule");
export const PayoutSchedulePeriod = tableOf("PayoutSchedulePeriod");

/** Whether `name` is a column of `table` (for the helpers that take column names as keys). */
export function hasColumn<T extends TableName>(table: T, name: string): name is ColumnOf<T> {
  return Object.hasOwn(COLUMNS[table], name);
}
