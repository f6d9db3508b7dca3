package com.payments.reconciler.workflow;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The deployed code (functions/src/main, the Lambda jar) depends on no harness code: not the auditor and the in-process
 * harness of this module's tests ({@code audit}, {@code testing}), not the local engines, not the CLI or the CDK app,
 * not a test library. The harness may use the deployed code; never the other way round.
 */
class DeployedCodeArchitectureTest {

    static final ArchRule NO_HARNESS_IN_DEPLOYED_CODE = noClasses().should().dependOnClassesThat().resideInAnyPackage(
                    "com.payments.reconciler.audit..", "com.payments.reconciler.testing..", "com.payments.reconciler.local..",
                    "com.payments.reconciler.cli..", "com.payments.reconciler.harness..", "com.payments.reconciler.cdk..",
                    "org.junit..", "org.assertj..", "net.jqwik..", "com.tngtech.archunit..")
            .because("functions/src/main is deployed: harness, engines and fakes stay out of the Lambda jar");

    @Test
    void theDeployedCodeDependsOnNoHarness() {
        // This module's compiled production code only (the local engines and test support are on the classpath too).
        Location functionsMain = Location.of(WorkflowDefinition.class.getProtectionDomain().getCodeSource().getLocation());
        JavaClasses deployed = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importLocations(Set.of(functionsMain));
        assertThat(deployed).as("the deployed classes were found").anyMatch(c -> c.isEquivalentTo(WorkflowDefinition.class));
        NO_HARNESS_IN_DEPLOYED_CODE.check(deployed);
    }

    /** The rule can fail: a class that calls the auditor or a local engine is named. */
    @Test
    void aClassReachingForTheHarnessIsNamed() {
        JavaClasses bad = new ClassFileImporter().importClasses(ReachesForTheAuditor.class, ReachesForTheEngines.class);
        EvaluationResult result = NO_HARNESS_IN_DEPLOYED_CODE.evaluate(bad);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().getDetails())
                .anyMatch(d -> d.contains(ReachesForTheAuditor.class.getSimpleName()) && d.contains("InvariantAudit"))
                .anyMatch(d -> d.contains(ReachesForTheEngines.class.getSimpleName()) && d.contains("MotoServer"));
    }

    /** Known bad: deployed-looking code that audits. */
    static final class ReachesForTheAuditor {
        Object audit(com.payments.reconciler.store.TableNames tables) {
            return new com.payments.reconciler.audit.InvariantAudit(tables);
        }
    }

    /** Known bad: deployed-looking code that starts a local engine. */
    static final class ReachesForTheEngines {
        private com.payments.reconciler.local.moto.MotoServer engine;

        String endpoint() {
            return engine.endpoint().toString();
        }
    }
}
