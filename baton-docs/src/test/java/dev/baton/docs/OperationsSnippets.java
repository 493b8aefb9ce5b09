package dev.baton.docs;

import dev.baton.Baton;
import dev.baton.LockAdmin;
import dev.baton.LockInfo;
import java.util.ArrayList;
import java.util.List;

/** The snippets of docs/operations.md; OperationsSnippetsTest runs them on H2. */
class OperationsSnippets {

    static List<String> listAndBreak(String uri) {
        List<String> lines = new ArrayList<>();
        // snippet:start admin
        try (LockAdmin admin = Baton.admin(uri)) {
            for (LockInfo lock : admin.locks("billing/")) { // locks, read/write locks, semaphores
                lines.add(lock.name() + " " + lock.kind() + " " + lock.holders() + " waiters " + lock.waiters());
            }
            admin.forceRelease("billing/nightly-report"); // logged at WARN with who broke what
        }
        // snippet:end admin
        return lines;
    }
}
