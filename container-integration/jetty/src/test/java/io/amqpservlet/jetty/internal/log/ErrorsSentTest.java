package io.amqpservlet.jetty.internal.log;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The errors sent by scope and condition, and the watch that meters are made from. */
class ErrorsSentTest {
    /**
     * A reader that sees a condition in the maps finds its meter made: the watchers hear of the first error of a kind
     * before the maps show it (a test that waits for the map and then scrapes found no meter yet).
     */
    @Test
    void aConditionShowsInTheMapsOnlyOnceItsWatchersHeardOfItAndItsFirstErrorIsCounted() {
        ErrorsSent errors = new ErrorsSent();
        List<Map<String, Long>> seenByWatcher = new ArrayList<>();
        errors.watch((scope, condition) -> seenByWatcher.add(errors.byCondition(scope)));
        errors.sent(ErrorsSent.Scope.LINK, "amqp:invalid-field");
        assertEquals(List.of(Map.of()), seenByWatcher, "not shown while the watchers are told");
        assertEquals(Map.of("amqp:invalid-field", 1L), errors.byCondition(ErrorsSent.Scope.LINK));
        errors.sent(ErrorsSent.Scope.LINK, "amqp:invalid-field");
        assertEquals(Map.of("amqp:invalid-field", 2L), errors.byCondition(ErrorsSent.Scope.LINK));
        assertEquals(1, seenByWatcher.size(), "told once per kind");
        assertEquals(Map.of(), errors.byCondition(ErrorsSent.Scope.SESSION));
    }

    @Test
    void scopesAreNamedByTheirTags() {
        for (ErrorsSent.Scope scope : ErrorsSent.Scope.values()) {
            assertEquals(scope, ErrorsSent.Scope.ofTag(scope.tag()));
        }
        assertThrows(IllegalArgumentException.class, () -> ErrorsSent.Scope.ofTag("delivery"));
    }
}
