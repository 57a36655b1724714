import { ATTACKER, CREATORS } from "./catalogue";
import type { Role } from "./entry";

// Who plays whom in one journey. The catalogue's steps name creators by role (alice, the
// rightful creator; bob, a second honest one) and the attacker by its part; a cast says which
// accounts at the click service play them, and which browser and network the shopper has. The
// arena plays every journey with one cast (ARENA_CAST, on a shop of its own); the population run
// (sandbox/arena/population) gives each journey its own shopper and its own accounts.

export interface Creator {
  creatorId: string;
  tag: string;
}

export interface Cast {
  /** The shopper's browser build: the stand-in shop knows its network address by it. */
  shopperAgent: string;
  /** The shopper's network address (browser_ip on the order). */
  shopperAddress: string;
  /** Another device behind the same address, for a journey that brings in another shopper. */
  otherAgent: string;
  /** The account behind each creator role the steps name. */
  creators: Record<Role, Creator>;
  /** The account the built-in attacker extension (and an attack from outside the page) claims for. */
  attacker: Creator;
}

/** Each journey's shopper: their own browser build, behind their own network address. */
const SHOPPER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";
/** Another shopper behind the same address: another device, so another user agent. */
export const OTHER_AGENT =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 19_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/19.1 Mobile/15E148 Safari/604.1";

/** The arena's one cast: alice and bob as the catalogue names them, cr_attacker with coupons-99. */
export const ARENA_CAST: Cast = {
  shopperAgent: SHOPPER_AGENT,
  shopperAddress: "198.51.100.7",
  otherAgent: OTHER_AGENT,
  creators: CREATORS,
  attacker: ATTACKER,
};
