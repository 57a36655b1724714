// The throwaway PostgreSQL cluster lives with the sandboxes (the chaos run starts one too);
// the test setup and suites import it from here.
export * from "../../sandbox/postgresql-cluster";
