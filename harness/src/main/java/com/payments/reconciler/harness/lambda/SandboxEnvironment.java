package com.payments.reconciler.harness.lambda;

import java.net.URI;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The whole environment of one sandbox process: the function's own variables, then Lambda's reserved
 * ones (which win, as Lambda does not let a function set them), and credentials only as SnapStart gives
 * them, through the container credentials endpoint. Nothing comes from the CLI's own environment: a
 * variable that happens to be set on the developer's machine (an access key, a profile, an endpoint) must
 * not make a function work locally that would fail on AWS.
 */
record SandboxEnvironment(Map<String, String> variables) {

    /** Lambda's default PATH for the managed runtimes; the JVM itself does not need one. */
    static final String LAMBDA_PATH = "/usr/local/bin:/usr/bin/:/bin:/opt/bin";

    SandboxEnvironment {
        variables = Map.copyOf(variables);
    }

    static SandboxEnvironment of(FunctionSpec spec, String region, String runtimeApi, Path taskRoot,
                                 URI credentialsUri, String authorizationToken, String logStreamSuffix) {
        Map<String, String> env = new LinkedHashMap<>(spec.environment());
        env.put("_HANDLER", spec.handler());
        env.put("AWS_EXECUTION_ENV", "AWS_Lambda_java25");
        env.put("AWS_LAMBDA_FUNCTION_NAME", spec.logicalName());
        env.put("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", Integer.toString(spec.memoryMb()));
        env.put("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST");
        // On AWS a SnapStart function's environments report "snap-start"; here no snapshot is taken or restored,
        // and the runtime client would run CRaC restore hooks for that value, so the truthful value is on-demand.
        env.put("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand");
        env.put("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/" + spec.logicalName());
        env.put("AWS_LAMBDA_LOG_STREAM_NAME", LocalDate.now(ZoneOffset.UTC).toString().replace('-', '/')
                + "/[$LATEST]" + logStreamSuffix);
        env.put("AWS_LAMBDA_RUNTIME_API", runtimeApi);
        env.put("AWS_REGION", region);
        env.put("AWS_DEFAULT_REGION", region);
        env.put("LAMBDA_TASK_ROOT", taskRoot.toString());
        env.put("TZ", ":UTC");
        env.put("LANG", spec.environment().getOrDefault("LANG", "en_US.UTF-8"));
        env.put("PATH", spec.environment().getOrDefault("PATH", LAMBDA_PATH));
        env.put("AWS_CONTAINER_CREDENTIALS_FULL_URI", credentialsUri.toString());
        env.put("AWS_CONTAINER_AUTHORIZATION_TOKEN", authorizationToken);
        FunctionSpec.CREDENTIAL_VARIABLES.forEach(env::remove);
        return new SandboxEnvironment(env);
    }
}
