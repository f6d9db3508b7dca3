package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/deploy.md's "Deleting the stack and deploying it again" agrees with the template: the resources it says
 * {@code cdk destroy} keeps are exactly the template's retained resources, by name, and every queue (each deleted with
 * the stack) is named under the warning that its messages go with it. Each side is read, never restated.
 */
class DeployDocsTest {

    private static final Path DEPLOY_MD = Path.of(System.getProperty("reconciler.repositoryRoot", "..")).resolve("docs").resolve("deploy.md");
    private static final String SECTION = "## Deleting the stack and deploying it again";
    private static final String KEEPS = "**keeps**";
    private static final String MESSAGES_WARNING = "**with any messages in them**";
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void whatTheDocsSayCdkDestroyKeepsAndDeletesIsWhatTheTemplateDoes() throws IOException {
        assertThat(disagreements(Files.readString(DEPLOY_MD))).isEmpty();
    }

    /** The check can fail: the docs as they were, six log groups (IngestEvents' missing) and no queue warning. */
    @Test
    void theCheckNamesAMissingLogGroupAndAMissingQueueWarning() throws IOException {
        String docs = Files.readString(DEPLOY_MD);
        String withoutIngestLogs = docs.replaceFirst("`/aws/lambda/\\{prefix\\}IngestEvents`,\\s*", "");
        assertThat(withoutIngestLogs).isNotEqualTo(docs);
        assertThat(disagreements(withoutIngestLogs)).containsExactly("kept by the template, not in the docs: /aws/lambda/{prefix}IngestEvents");
        String withoutWarning = docs.replace(MESSAGES_WARNING, "");
        assertThat(disagreements(withoutWarning)).anySatisfy(d -> assertThat(d).contains("no list of queues deleted " + MESSAGES_WARNING));
    }

    List<String> disagreements(String docs) {
        List<String> wrong = new ArrayList<>();
        int start = docs.indexOf(SECTION);
        if (start < 0) {
            return List.of("no section " + SECTION);
        }
        int end = docs.indexOf("\n## ", start + SECTION.length());
        String section = docs.substring(start, end < 0 ? docs.length() : end);
        Set<String> documentedKept = namesInBulletsAfter(section, KEEPS);
        Set<String> kept = templateRetainedNames();
        kept.stream().filter(n -> !documentedKept.contains(n)).forEach(n -> wrong.add("kept by the template, not in the docs: " + n));
        documentedKept.stream().filter(n -> !kept.contains(n)).forEach(n -> wrong.add("in the docs, not kept by the template: " + n));
        Set<String> documentedQueues = namesInBulletsAfter(section, MESSAGES_WARNING);
        if (documentedQueues.isEmpty()) {
            wrong.add("no list of queues deleted " + MESSAGES_WARNING);
        }
        for (String queue : templateQueueNames()) {
            if (!documentedQueues.isEmpty() && !documentedQueues.contains(queue)) {
                wrong.add("a queue the stack deletes, not under the warning: " + queue);
            }
        }
        return wrong;
    }

    /** The code spans before the first ": " of each bullet of the first list after the line holding {@code marker}. */
    private static Set<String> namesInBulletsAfter(String section, String marker) {
        Set<String> names = new TreeSet<>();
        int at = section.indexOf(marker);
        if (at < 0) {
            return names;
        }
        List<String> bullets = new ArrayList<>();
        boolean inList = false;
        for (String line : section.substring(section.indexOf('\n', at) + 1).split("\n")) {
            if (line.startsWith("- ")) {
                bullets.add(line.substring(2));
                inList = true;
            } else if (inList && line.startsWith("  ") && !line.isBlank()) {
                bullets.set(bullets.size() - 1, bullets.getLast() + " " + line.strip());
            } else if (inList) {
                break;
            }
        }
        for (String bullet : bullets) {
            int colon = bullet.indexOf("`: ");
            Matcher m = CODE.matcher(colon < 0 ? bullet : bullet.substring(0, colon + 1));
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    /** Each retained resource's name as the docs write it: the prefix as {prefix}, the configured secret name as {providerSecretName}. */
    private Set<String> templateRetainedNames() {
        Set<String> names = new TreeSet<>();
        FirstDeployTest.retainedResources(template.root()).forEach((id, r) -> {
            JsonNode p = r.path("Properties");
            String name = switch (r.path("Type").asText()) {
                case "AWS::DynamoDB::Table" -> p.path("TableName").asText();
                case "AWS::Logs::LogGroup" -> p.path("LogGroupName").asText();
                case "AWS::SecretsManager::Secret" -> p.path("Name").asText().equals(synth.config.providerSecretName())
                        ? "{providerSecretName}" : p.path("Name").asText();
                case "AWS::KMS::Key" -> aliasOf(id);
                default -> "an undocumented kind " + r.path("Type").asText() + " (" + id + ")";
            };
            names.add(name.replace(synth.config.namePrefix(), "{prefix}"));
        });
        return names;
    }

    private String aliasOf(String keyId) {
        List<String> aliases = new ArrayList<>();
        template.resources("AWS::KMS::Alias").values().forEach(a -> {
            if (a.path("Properties").path("TargetKeyId").toString().contains("\"" + keyId + "\"")) {
                aliases.add(a.path("Properties").path("AliasName").asText());
            }
        });
        return aliases.size() == 1 ? aliases.getFirst() : "the key " + keyId + " with aliases " + aliases;
    }

    private Set<String> templateQueueNames() {
        Set<String> names = new TreeSet<>();
        template.resources("AWS::SQS::Queue").forEach((id, q) -> {
            assertThat(q.path("DeletionPolicy").asText("Delete")).as("%s is deleted with the stack", id).isEqualTo("Delete");
            names.add(q.path("Properties").path("QueueName").asText().replace(synth.config.namePrefix(), "{prefix}"));
        });
        return names;
    }
}
