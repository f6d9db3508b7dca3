package com.payments.reconciler.cli;

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
 * The operator's commands (cli/src/main, the jar people run against AWS) depend on no harness: not the local
 * harness module, not the local engines, not the functions' test support or the auditor, not a test library. The
 * Maven build keeps them off cli's compile class path; this rule says why and catches a dependency added there.
 */
class OperatorCodeArchitectureTest {

    static final ArchRule NO_HARNESS_IN_OPERATOR_CODE = noClasses().should().dependOnClassesThat().resideInAnyPackage(
                    "com.payments.reconciler.harness..", "com.payments.reconciler.local..",
                    "com.payments.reconciler.audit..", "com.payments.reconciler.testing..",
                    "org.junit..", "org.assertj..", "net.jqwik..", "com.tngtech.archunit..")
            .because("cli/src/main is the operator's tool against AWS: the harness and the engines stay out of it");

    @Test
    void theOperatorCommandsDependOnNoHarness() {
        Location cliMain = Location.of(ReconcilerCli.class.getProtectionDomain().getCodeSource().getLocation());
        JavaClasses operator = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importLocations(Set.of(cliMain));
        assertThat(operator).as("the operator's classes were found").anyMatch(c -> c.isEquivalentTo(ReconcilerCli.class));
        NO_HARNESS_IN_OPERATOR_CODE.check(operator);
    }

    /** The rule can fail: this module's own moto-backed test reaches for a local engine and is named. */
    @Test
    void aClassReachingForALocalEngineIsNamed() {
        JavaClasses bad = new ClassFileImporter().importClasses(OperatorCommandsTest.class);
        EvaluationResult result = NO_HARNESS_IN_OPERATOR_CODE.evaluate(bad);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().getDetails())
                .anyMatch(d -> d.contains(OperatorCommandsTest.class.getSimpleName()) && d.contains("MotoServer"));
    }
}
