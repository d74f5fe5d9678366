//! Tool call ↔ result pairing by call id only (never by position, SPEC P3).

use std::collections::HashMap;

use scry_model::{Event, EventKind};

/// For each tool call (by index into the event list), the index of its result, if any.
#[derive(Debug, Default, Clone)]
pub struct Pairs {
    result_of_call: HashMap<usize, usize>,
    call_of_result: HashMap<usize, usize>,
}

impl Pairs {
    /// Pairs every `ToolCall` with the first later `ToolResult` carrying the same call id.
    /// A result that precedes its call (some formats log receipts first) is accepted when no
    /// later one exists.
    pub fn build(events: &[Event]) -> Self {
        let mut results: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, e) in events.iter().enumerate() {
            if e.kind == EventKind::ToolResult {
                if let Some(id) = e.call_id.as_deref() {
                    results.entry(id).or_default().push(i);
                }
            }
        }
        let mut pairs = Pairs::default();
        for (i, e) in events.iter().enumerate() {
            if e.kind != EventKind::ToolCall {
                continue;
            }
            let Some(id) = e.call_id.as_deref() else {
                continue;
            };
            let Some(cands) = results.get(id) else {
                continue;
            };
            let pick = cands
                .iter()
                .copied()
                .find(|&r| r > i && !pairs.call_of_result.contains_key(&r))
                .or_else(|| {
                    cands
                        .iter()
                        .copied()
                        .find(|r| !pairs.call_of_result.contains_key(r))
                });
            if let Some(r) = pick {
                pairs.result_of_call.insert(i, r);
                pairs.call_of_result.insert(r, i);
            }
        }
        pairs
    }

    /// The result index of the call at `call`.
    pub fn result(&self, call: usize) -> Option<usize> {
        self.result_of_call.get(&call).copied()
    }

    /// The call index of the result at `result`.
    pub fn call(&self, result: usize) -> Option<usize> {
        self.call_of_result.get(&result).copied()
    }
}

#[cfg(test)]
pub(crate) mod testkit {
    //! Hand-written events for the unit tests of every extractor.
    use scry_model::{assign_turns, Event, EventKind, Locator};
    use serde_json::Value;

    /// Builds an event list with `seq` and turns assigned.
    #[derive(Default)]
    pub struct Script {
        pub events: Vec<Event>,
    }

    #[allow(dead_code)]
    impl Script {
        pub fn push(&mut self, mut e: Event) -> &mut Self {
            e.seq = u32::try_from(self.events.len()).unwrap_or(u32::MAX);
            self.events.push(e);
            assign_turns(&mut self.events);
            self
        }
        fn loc(&self) -> Locator {
            Locator::native(&format!("ev{}", self.events.len()), None)
        }
        pub fn user(&mut self, text: &str) -> &mut Self {
            let e = Event::new(EventKind::User, text, self.loc());
            self.push(e)
        }
        pub fn assistant(&mut self, text: &str) -> &mut Self {
            let e = Event::new(EventKind::Assistant, text, self.loc());
            self.push(e)
        }
        pub fn meta(&mut self, subtype: &str, data: Option<Value>) -> &mut Self {
            let mut e = Event::new(EventKind::Meta, "", self.loc());
            e.subtype = Some(subtype.to_string());
            e.data = data;
            self.push(e)
        }
        pub fn kind(&mut self, kind: EventKind, subtype: Option<&str>, text: &str) -> &mut Self {
            let mut e = Event::new(kind, text, self.loc());
            e.subtype = subtype.map(str::to_string);
            self.push(e)
        }
        pub fn call(&mut self, tool: &str, id: &str, args: Value) -> &mut Self {
            let mut e = Event::new(EventKind::ToolCall, "", self.loc());
            e.tool = Some(tool.to_string());
            e.call_id = Some(id.to_string());
            e.args = Some(args);
            self.push(e)
        }
        pub fn result(
            &mut self,
            tool: &str,
            id: &str,
            text: &str,
            exit: Option<i64>,
            err: Option<bool>,
        ) -> &mut Self {
            let mut e = Event::new(EventKind::ToolResult, text, self.loc());
            e.tool = Some(tool.to_string());
            e.call_id = Some(id.to_string());
            e.exit_code = exit;
            e.is_error = err;
            self.push(e)
        }
        /// A shell call `id` running `cmd` with a result of exit code `exit`.
        pub fn bash(&mut self, id: &str, cmd: &str, exit: Option<i64>, out: &str) -> &mut Self {
            self.call("Bash", id, serde_json::json!({ "command": cmd }));
            let err = exit.map(|c| c != 0);
            self.result("Bash", id, out, exit, err)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testkit::Script;
    use super::*;

    #[test]
    fn pairs_by_id_not_position() {
        let mut s = Script::default();
        s.user("go")
            .call("Bash", "a", serde_json::json!({}))
            .call("Bash", "b", serde_json::json!({}))
            .result("Bash", "b", "", Some(0), None)
            .result("Bash", "zzz", "", Some(0), None);
        let p = Pairs::build(&s.events);
        assert_eq!(p.result(1), None);
        assert_eq!(p.result(2), Some(3));
        assert_eq!(p.call(3), Some(2));
        assert_eq!(p.call(4), None);
    }
}
