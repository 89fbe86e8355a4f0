/**
 * A rules spec read as a sentence: `given(situation, state).when(action, act).then(outcome, check)`
 * is one test, named "given …, when …, then …", that builds the state afresh, acts on it, and checks
 * what came out (with the state beside it).
 */
export function given<S>(situation: string, state: () => S) {
  return {
    when<R>(action: string, act: (state: S) => R) {
      return {
        then(outcome: string, check: (result: R, state: S) => void): void {
          it(`given ${situation}, when ${action}, then ${outcome}`, () => {
            const before = state();
            check(act(before), before);
          });
        },
      };
    },
  };
}
