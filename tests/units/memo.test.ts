import { describe, expect, it } from "vitest";
import { memoCache } from "../../app/units/memo";

describe("memoCache", () => {
  it("makes a key's value once and answers it after, null and undefined values included", () => {
    const memo = memoCache<string | null | undefined>();
    const made: string[] = [];
    const make = (key: string, value: string | null | undefined) => () => {
      made.push(key);
      return value;
    };
    expect(memo("a", make("a", "A"))).toBe("A");
    expect(memo("a", make("a", "other"))).toBe("A");
    expect(memo("n", make("n", null))).toBeNull();
    expect(memo("n", make("n", "other"))).toBeNull();
    expect(memo("u", make("u", undefined))).toBeUndefined();
    expect(memo("u", make("u", "other"))).toBeUndefined();
    expect(made).toEqual(["a", "n", "u"]);
  });

  it("starts over past its cap: the value is made again, still right", () => {
    const memo = memoCache<number>(3);
    let makes = 0;
    const value = (key: string) => () => {
      makes += 1;
      return key.length;
    };
    for (const key of ["a", "bb", "ccc"]) memo(key, value(key));
    expect(makes).toBe(3);
    expect(memo("dddd", value("dddd"))).toBe(4);
    expect(memo("bb", value("bb"))).toBe(2);
    expect(makes).toBe(5);
  });
});
