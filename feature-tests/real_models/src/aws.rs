//! aws_lambda_events: each fixture under `src/fixtures` and the type the
//! crate's own `#[test]`s decode it into (`include_bytes!("../../fixtures/..")`
//! then `serde_json::from_slice::<T>` or `verify_serde_roundtrip::<T>`), written
//! out by hand from those tests. Seven fixtures no test reads are mapped to the
//! type their event module defines for them (marked). The test-local types
//! (`CustStruct`, `TestProperties`, `Ec2StateChange`) are declared below with
//! the same fields and attributes as the tests'.
//!
//! The fixtures of `alb`, `apigw`, `iot`, `s3` and `vpc_lattice` are only run
//! with the `aws` feature (all of the crate's default features): with the
//! `aws-subset` feature the crate is built without those features, whose code
//! (`custom_serde/headers.rs`, `s3::object_lambda`) does not compile with
//! jitson's derives added (see SOURCES.md).

use std::collections::HashMap;

use aws_lambda_events::*;

use crate::{Case, case};

const K: &str = "aws_lambda_events";

#[derive(Debug, serde::Serialize, serde::Deserialize, jitson::Decode, jitson::Encode)]
#[serde(rename_all = "PascalCase")]
pub struct TestProperties {
    key_1: String,
    key_2: Vec<String>,
    key_3: HashMap<String, String>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize, jitson::Decode, jitson::Encode)]
#[serde(rename_all = "kebab-case")]
pub struct Ec2StateChange {
    instance_id: String,
    state: String,
}

/// `CustStruct` of sns's `my_example_sns_obj_event`.
#[derive(Debug, serde::Serialize, serde::Deserialize, jitson::Decode, jitson::Encode)]
pub struct SnsCustStruct {
    foo: String,
    bar: i32,
}

/// `CustStruct` of sqs's `example_sqs_obj_event`.
#[derive(Debug, serde::Serialize, serde::Deserialize, jitson::Decode, jitson::Encode)]
pub struct SqsCustStruct {
    a: String,
    b: u32,
}

/// `CustStruct` of sqs's `example_sqs_api_obj_event`.
#[derive(Debug, serde::Serialize, serde::Deserialize, jitson::Decode, jitson::Encode)]
pub struct SqsApiCustStruct {
    city: String,
    country: String,
}

/// Fixtures run only when the whole crate (its default features) is built.
pub const FULL_ONLY: &[&str] = &[
    "src/fixtures/example-alb-lambda-target-request-headers-only.json",
    "src/fixtures/example-alb-lambda-target-request-multivalue-headers.json",
    "src/fixtures/example-alb-lambda-target-response.json",
    "src/fixtures/example-apigw-console-request.json",
    "src/fixtures/example-apigw-console-test-request.json",
    "src/fixtures/example-apigw-custom-auth-request-type-request.json",
    "src/fixtures/example-apigw-custom-auth-request.json",
    "src/fixtures/example-apigw-custom-auth-response-with-condition.json",
    "src/fixtures/example-apigw-custom-auth-response-with-single-value-action.json",
    "src/fixtures/example-apigw-custom-auth-response-with-single-value-resource.json",
    "src/fixtures/example-apigw-custom-auth-response.json",
    "src/fixtures/example-apigw-request-catch-all.json",
    "src/fixtures/example-apigw-request-multi-value-parameters.json",
    "src/fixtures/example-apigw-request.json",
    "src/fixtures/example-apigw-response.json",
    "src/fixtures/example-apigw-restapi-openapi-request.json",
    "src/fixtures/example-apigw-sam-http-request.json",
    "src/fixtures/example-apigw-sam-rest-request.json",
    "src/fixtures/example-apigw-v2-custom-authorizer-v1-request.json",
    "src/fixtures/example-apigw-v2-custom-authorizer-v2-request-null-maps.json",
    "src/fixtures/example-apigw-v2-custom-authorizer-v2-request-without-cookies.json",
    "src/fixtures/example-apigw-v2-custom-authorizer-v2-request-without-identity-source.json",
    "src/fixtures/example-apigw-v2-custom-authorizer-v2-request.json",
    "src/fixtures/example-apigw-v2-custom-authorizer-websocket-request.json",
    "src/fixtures/example-apigw-v2-request-iam.json",
    "src/fixtures/example-apigw-v2-request-jwt-authorizer.json",
    "src/fixtures/example-apigw-v2-request-lambda-authorizer.json",
    "src/fixtures/example-apigw-v2-request-multi-value-parameters.json",
    "src/fixtures/example-apigw-v2-request-no-authorizer.json",
    "src/fixtures/example-apigw-websocket-request-disconnect-route.json",
    "src/fixtures/example-apigw-websocket-request-without-method.json",
    "src/fixtures/example-apigw-websocket-request.json",
    "src/fixtures/example-iot-custom-auth-request-x509.json",
    "src/fixtures/example-iot-custom-auth-request.json",
    "src/fixtures/example-iot-custom-auth-response.json",
    "src/fixtures/example-s3-event-with-decoded.json",
    "src/fixtures/example-s3-event.json",
    "src/fixtures/example-s3-object-lambda-event-get-object-assumed-role.json",
    "src/fixtures/example-s3-object-lambda-event-get-object-iam.json",
    "src/fixtures/example-s3-object-lambda-event-head-object-iam.json",
    "src/fixtures/example-s3-object-lambda-event-list-objects-iam.json",
    "src/fixtures/example-s3-object-lambda-event-list-objects-v2-iam.json",
    "src/fixtures/example-vpc-lattice-response.json",
    "src/fixtures/example-vpc-lattice-v1-request.json",
    "src/fixtures/example-vpc-lattice-v2-request-base64.json",
    "src/fixtures/example-vpc-lattice-v2-request-roles-anywhere.json",
    "src/fixtures/example-vpc-lattice-v2-request.json",
];

pub fn cases() -> Vec<Case> {
    #[allow(unused_mut)]
    let mut all = vec![
        case!(K, "src/fixtures/example-activemq-event.json", activemq::ActiveMqEvent),
        case!(K, "src/fixtures/example-activemq-event-null-properties.json", activemq::ActiveMqEvent),
        case!(K, "src/fixtures/example-appsync-direct-resolver.json", appsync::AppSyncDirectResolverEvent),
        case!(K, "src/fixtures/example-appsync-identity-cognito.json", appsync::AppSyncCognitoIdentity),
        case!(K, "src/fixtures/example-appsync-identity-iam.json", appsync::AppSyncIamIdentity),
        case!(K, "src/fixtures/example-appsync-lambda-auth-request.json", appsync::AppSyncLambdaAuthorizerRequest),
        case!(K, "src/fixtures/example-appsync-lambda-auth-response.json", appsync::AppSyncLambdaAuthorizerResponse),
        case!(K, "src/fixtures/example-appsync-invoke.json", appsync::AppSyncResolverTemplate, "not decoded by the crate's tests: type chosen by the harness"),
        case!(K, "src/fixtures/example-appsync-batchinvoke.json", appsync::AppSyncResolverTemplate, "not decoded by the crate's tests: type chosen by the harness"),
        case!(K, "src/fixtures/example-autoscaling-event-launch-successful.json", autoscaling::AutoScalingEvent),
        case!(K, "src/fixtures/example-autoscaling-event-launch-unsuccessful.json", autoscaling::AutoScalingEvent),
        case!(K, "src/fixtures/example-autoscaling-event-lifecycle-action.json", autoscaling::AutoScalingEvent),
        case!(K, "src/fixtures/example-autoscaling-event-terminate-action.json", autoscaling::AutoScalingEvent),
        case!(K, "src/fixtures/example-autoscaling-event-terminate-successful.json", autoscaling::AutoScalingEvent),
        case!(K, "src/fixtures/example-autoscaling-event-terminate-unsuccessful.json", autoscaling::AutoScalingEvent),
        case!(K, "src/fixtures/example-bedrock-agent-runtime-event-without-parameters.json", event::bedrock_agent_runtime::AgentEvent),
        case!(K, "src/fixtures/example-bedrock-agent-runtime-event-without-request-body.json", event::bedrock_agent_runtime::AgentEvent),
        case!(K, "src/fixtures/example-bedrock-agent-runtime-event.json", event::bedrock_agent_runtime::AgentEvent),
        case!(K, "src/fixtures/example-clientvpn-connectionhandler-request.json", clientvpn::ClientVpnConnectionHandlerRequest),
        case!(K, "src/fixtures/example-cloudformation-custom-resource-create-request.json", cloudformation::CloudFormationCustomResourceRequest<TestProperties, TestProperties>),
        case!(K, "src/fixtures/example-cloudformation-custom-resource-provider-create-request.json", cloudformation::provider::CloudFormationCustomResourceRequest<TestProperties, TestProperties>),
        case!(K, "src/fixtures/example-cloudformation-custom-resource-update-request.json", cloudformation::CloudFormationCustomResourceRequest<TestProperties, TestProperties>),
        case!(K, "src/fixtures/example-cloudformation-custom-resource-provider-update-request.json", cloudformation::provider::CloudFormationCustomResourceRequest<TestProperties, TestProperties>),
        case!(K, "src/fixtures/example-cloudformation-custom-resource-delete-request.json", cloudformation::CloudFormationCustomResourceRequest<TestProperties, TestProperties>),
        case!(K, "src/fixtures/example-cloudformation-custom-resource-provider-delete-request.json", cloudformation::provider::CloudFormationCustomResourceRequest<TestProperties, TestProperties>),
        case!(K, "src/fixtures/example-cloudformation-custom-resource-response.json", cloudformation::CloudFormationCustomResourceResponse),
        case!(K, "src/fixtures/example-cloudformation-custom-resource-provider-response.json", cloudformation::provider::CloudFormationCustomResourceResponse),
        case!(K, "src/fixtures/example-cloudwatch-alarm-composite-with-suppressor-alarm.json", cloudwatch_alarms::CloudWatchCompositeAlarm),
        case!(K, "src/fixtures/example-cloudwatch-alarm-composite.json", cloudwatch_alarms::CloudWatchCompositeAlarm),
        case!(K, "src/fixtures/example-cloudwatch-alarm-metric.json", cloudwatch_alarms::CloudWatchMetricAlarm),
        case!(K, "src/fixtures/example-cloudwatch-alarm-sns-payload-multiple-metrics.json", sns::SnsEvent),
        case!(K, "src/fixtures/example-cloudwatch-alarm-sns-payload-single-metric.json", sns::SnsEvent),
        case!(K, "src/fixtures/example-cloudwatch-alarm-sns-payload-single-metric.json", sns::SnsEventObj<aws_lambda_events::sns::CloudWatchAlarmPayload>),
        case!(K, "src/fixtures/example-cloudwatch-cloudtrail-assumed-role.json", cloudwatch_events::cloudtrail::AWSAPICall),
        case!(K, "src/fixtures/example-cloudwatch-cloudtrail-unknown-federate.json", cloudwatch_events::cloudtrail::AWSAPICall),
        case!(K, "src/fixtures/example-cloudwatch-cloudtrail-unknown-user-auth.json", cloudwatch_events::cloudtrail::AWSAPICall),
        case!(K, "src/fixtures/example-cloudwatch_logs-event.json", cloudwatch_logs::LogsEvent),
        case!(K, "src/fixtures/example-code_commit-event.json", code_commit::CodeCommitEvent),
        case!(K, "src/fixtures/example-codebuild-phase-change.json", codebuild::CodeBuildEvent),
        case!(K, "src/fixtures/example-codebuild-state-change.json", codebuild::CodeBuildEvent),
        case!(K, "src/fixtures/example-codedeploy-deployment-event.json", codedeploy::CodeDeployEvent),
        case!(K, "src/fixtures/example-codedeploy-instance-event.json", codedeploy::CodeDeployEvent),
        case!(K, "src/fixtures/example-codedeploy-lifecycle-event.json", codedeploy::CodeDeployLifecycleEvent),
        case!(K, "src/fixtures/example-codepipeline-action-execution-stage-change-event.json", codepipeline_cloudwatch::CodePipelineCloudWatchEvent),
        case!(K, "src/fixtures/example-codepipeline-execution-stage-change-event.json", codepipeline_cloudwatch::CodePipelineCloudWatchEvent),
        case!(K, "src/fixtures/example-codepipeline-execution-state-change-event.json", codepipeline_cloudwatch::CodePipelineCloudWatchEvent),
        case!(K, "src/fixtures/example-codepipeline_job-event.json", codepipeline_job::CodePipelineJobEvent),
        case!(K, "src/fixtures/example-cognito-event.json", cognito::CognitoEvent),
        case!(K, "src/fixtures/example-cognito-event-userpools-create-auth-challenge-user-not-found.json", cognito::CognitoEventUserPoolsCreateAuthChallenge),
        case!(K, "src/fixtures/example-cognito-event-userpools-create-auth-challenge.json", cognito::CognitoEventUserPoolsCreateAuthChallenge),
        case!(K, "src/fixtures/example-cognito-event-userpools-custommessage.json", cognito::CognitoEventUserPoolsCustomMessage),
        case!(K, "src/fixtures/example-cognito-event-userpools-define-auth-challenge-optional-response-fields.json", cognito::CognitoEventUserPoolsDefineAuthChallenge),
        case!(K, "src/fixtures/example-cognito-event-userpools-define-auth-challenge-user-not-found.json", cognito::CognitoEventUserPoolsDefineAuthChallenge),
        case!(K, "src/fixtures/example-cognito-event-userpools-define-auth-challenge.json", cognito::CognitoEventUserPoolsDefineAuthChallenge),
        case!(K, "src/fixtures/example-cognito-event-userpools-migrateuser-null-fields.json", cognito::CognitoEventUserPoolsMigrateUser),
        case!(K, "src/fixtures/example-cognito-event-userpools-migrateuser.json", cognito::CognitoEventUserPoolsMigrateUser),
        case!(K, "src/fixtures/example-cognito-event-userpools-postauthentication.json", cognito::CognitoEventUserPoolsPostAuthentication),
        case!(K, "src/fixtures/example-cognito-event-userpools-postconfirmation.json", cognito::CognitoEventUserPoolsPostConfirmation),
        case!(K, "src/fixtures/example-cognito-event-userpools-preauthentication.json", cognito::CognitoEventUserPoolsPreAuthentication),
        case!(K, "src/fixtures/example-cognito-event-userpools-presignup.json", cognito::CognitoEventUserPoolsPreSignup),
        case!(K, "src/fixtures/example-cognito-event-userpools-pretokengen-incoming.json", cognito::CognitoEventUserPoolsPreTokenGen),
        case!(K, "src/fixtures/example-cognito-event-userpools-pretokengen-null-group-configuration.json", cognito::CognitoEventUserPoolsPreTokenGen),
        case!(K, "src/fixtures/example-cognito-event-userpools-pretokengen.json", cognito::CognitoEventUserPoolsPreTokenGen),
        case!(K, "src/fixtures/example-cognito-event-userpools-pretokengen-v2-incoming.json", cognito::CognitoEventUserPoolsPreTokenGenV2),
        case!(K, "src/fixtures/example-cognito-event-userpools-pretokengen-v2-null-group-configuration.json", cognito::CognitoEventUserPoolsPreTokenGenV2),
        case!(K, "src/fixtures/example-cognito-event-userpools-pretokengen-v2.json", cognito::CognitoEventUserPoolsPreTokenGenV2),
        case!(K, "src/fixtures/example-cognito-event-userpools-verify-auth-challenge-null-answer-correct.json", cognito::CognitoEventUserPoolsVerifyAuthChallenge),
        case!(K, "src/fixtures/example-cognito-event-userpools-verify-auth-challenge-optional-answer-correct.json", cognito::CognitoEventUserPoolsVerifyAuthChallenge),
        case!(K, "src/fixtures/example-cognito-event-userpools-verify-auth-challenge-user-not-found.json", cognito::CognitoEventUserPoolsVerifyAuthChallenge),
        case!(K, "src/fixtures/example-cognito-event-userpools-verify-auth-challenge.json", cognito::CognitoEventUserPoolsVerifyAuthChallenge),
        case!(K, "src/fixtures/example-config-event.json", config::ConfigEvent),
        case!(K, "src/fixtures/example-connect-event-without-queue.json", connect::ConnectEvent),
        case!(K, "src/fixtures/example-connect-event.json", connect::ConnectEvent),
        case!(K, "src/fixtures/example-controltower-create-managed-account.json", controltower::ControlTowerLifecycleEvent),
        case!(K, "src/fixtures/example-controltower-deregister-organizational-unit.json", controltower::ControlTowerLifecycleEvent),
        case!(K, "src/fixtures/example-controltower-disable-baseline.json", controltower::ControlTowerLifecycleEvent),
        case!(K, "src/fixtures/example-controltower-disable-guardrail.json", controltower::ControlTowerLifecycleEvent),
        case!(K, "src/fixtures/example-controltower-enable-baseline.json", controltower::ControlTowerLifecycleEvent),
        case!(K, "src/fixtures/example-controltower-enable-guardrail.json", controltower::ControlTowerLifecycleEvent),
        case!(K, "src/fixtures/example-controltower-precheck-organizational-unit.json", controltower::ControlTowerLifecycleEvent),
        case!(K, "src/fixtures/example-controltower-register-organizational-unit.json", controltower::ControlTowerLifecycleEvent),
        case!(K, "src/fixtures/example-controltower-reset-enabled-baseline.json", controltower::ControlTowerLifecycleEvent),
        case!(K, "src/fixtures/example-controltower-setup-landing-zone.json", controltower::ControlTowerLifecycleEvent),
        case!(K, "src/fixtures/example-controltower-update-enabled-baseline.json", controltower::ControlTowerLifecycleEvent),
        case!(K, "src/fixtures/example-controltower-update-landing-zone.json", controltower::ControlTowerLifecycleEvent),
        case!(K, "src/fixtures/example-controltower-update-managed-account.json", controltower::ControlTowerLifecycleEvent),
        case!(K, "src/fixtures/example-documentdb-delete-event.json", documentdb::DocumentDbEvent),
        case!(K, "src/fixtures/example-documentdb-drop-database-event.json", documentdb::DocumentDbEvent),
        case!(K, "src/fixtures/example-documentdb-drop-event.json", documentdb::DocumentDbEvent),
        case!(K, "src/fixtures/example-documentdb-insert-event.json", documentdb::DocumentDbEvent),
        case!(K, "src/fixtures/example-documentdb-invalidate-event.json", documentdb::DocumentDbEvent),
        case!(K, "src/fixtures/example-documentdb-rename-event.json", documentdb::DocumentDbEvent),
        case!(K, "src/fixtures/example-documentdb-replace-event.json", documentdb::DocumentDbEvent),
        case!(K, "src/fixtures/example-documentdb-update-event.json", documentdb::DocumentDbEvent),
        case!(K, "src/fixtures/example-dynamodb-event.json", dynamodb::Event),
        case!(K, "src/fixtures/example-dynamodb-event-null-items.json", dynamodb::Event),
        case!(K, "src/fixtures/example-dynamodb-event-record-with-optional-fields.json", dynamodb::EventRecord),
        case!(K, "src/fixtures/example-ecr-image-scan-event-with-missing-severities.json", ecr_scan::EcrScanEvent),
        case!(K, "src/fixtures/example-ecr-image-scan-event.json", ecr_scan::EcrScanEvent),
        case!(K, "src/fixtures/example-eventbridge-event-obj.json", eventbridge::EventBridgeEvent<Ec2StateChange>),
        case!(K, "src/fixtures/example-eventbridge-schedule.json", eventbridge::EventBridgeEvent),
        case!(K, "src/fixtures/example-firehose-event.json", firehose::KinesisFirehoseEvent),
        case!(K, "src/fixtures/example-kinesis-firehose-event.json", firehose::KinesisFirehoseEvent, "not decoded by the crate's tests: type chosen by the harness"),
        case!(K, "src/fixtures/example-kinesis-firehose-response.json", firehose::KinesisFirehoseResponse, "not decoded by the crate's tests: type chosen by the harness"),
        case!(K, "src/fixtures/example-iot_1_click-event.json", iot_1_click::IoTOneClickEvent),
        case!(K, "src/fixtures/example-iot_button-event.json", iot_button::IoTButtonEvent),
        case!(K, "src/fixtures/example-kafka-event.json", kafka::KafkaEvent),
        case!(K, "src/fixtures/example-kinesis-event-encrypted.json", kinesis::KinesisEvent),
        case!(K, "src/fixtures/example-kinesis-event.json", kinesis::KinesisEvent),
        case!(K, "src/fixtures/example-lex-event.json", lex::LexEvent),
        case!(K, "src/fixtures/example-lex-response.json", lex::LexEvent),
        case!(K, "src/fixtures/example-rabbitmq-event.json", rabbitmq::RabbitMqEvent),
        case!(K, "src/fixtures/example-secretsmanager-secret-rotation-event.json", secretsmanager::SecretsManagerSecretRotationEvent),
        case!(K, "src/fixtures/example-ses-bcc-event.json", ses::SimpleEmailEvent),
        case!(K, "src/fixtures/example-ses-lambda-event.json", ses::SimpleEmailEvent),
        case!(K, "src/fixtures/example-ses-s3-event.json", ses::SimpleEmailEvent),
        case!(K, "src/fixtures/example-ses-sns-event.json", ses::SimpleEmailEvent),
        case!(K, "src/fixtures/example-ses-event.json", ses::SimpleEmailEvent, "not decoded by the crate's tests: type chosen by the harness"),
        case!(K, "src/fixtures/example-sns-event-obj.json", sns::SnsEventObj<SnsCustStruct>),
        case!(K, "src/fixtures/example-sns-event-pascal-case.json", sns::SnsEvent),
        case!(K, "src/fixtures/example-sns-event.json", sns::SnsEvent),
        case!(K, "src/fixtures/example-sns-subscription-confirmation.json", sns::SnsSubscriptionMessage),
        case!(K, "src/fixtures/example-sns-unsubscribe-confirmation.json", sns::SnsSubscriptionMessage),
        case!(K, "src/fixtures/example-sqs-api-event-obj.json", sqs::SqsApiEventObj<SqsApiCustStruct>),
        case!(K, "src/fixtures/example-sqs-batch-response.json", sqs::SqsBatchResponse),
        case!(K, "src/fixtures/example-sqs-event-obj.json", sqs::SqsEventObj<SqsCustStruct>),
        case!(K, "src/fixtures/example-sqs-event.json", sqs::SqsEvent),
    ];
    #[cfg(feature = "aws")]
    all.extend([
        case!(K, "src/fixtures/example-alb-lambda-target-request-headers-only.json", alb::AlbTargetGroupRequest),
        case!(K, "src/fixtures/example-alb-lambda-target-request-multivalue-headers.json", alb::AlbTargetGroupRequest),
        case!(K, "src/fixtures/example-alb-lambda-target-response.json", alb::AlbTargetGroupResponse),
        case!(K, "src/fixtures/example-apigw-console-request.json", apigw::ApiGatewayProxyRequest),
        case!(K, "src/fixtures/example-apigw-console-test-request.json", apigw::ApiGatewayProxyRequest),
        case!(K, "src/fixtures/example-apigw-custom-auth-request-type-request.json", apigw::ApiGatewayCustomAuthorizerRequestTypeRequest),
        case!(K, "src/fixtures/example-apigw-custom-auth-request.json", apigw::ApiGatewayCustomAuthorizerRequest),
        case!(K, "src/fixtures/example-apigw-custom-auth-response-with-condition.json", apigw::ApiGatewayCustomAuthorizerResponse),
        case!(K, "src/fixtures/example-apigw-custom-auth-response-with-single-value-action.json", apigw::ApiGatewayCustomAuthorizerResponse),
        case!(K, "src/fixtures/example-apigw-custom-auth-response-with-single-value-resource.json", apigw::ApiGatewayCustomAuthorizerResponse),
        case!(K, "src/fixtures/example-apigw-custom-auth-response.json", apigw::ApiGatewayCustomAuthorizerResponse),
        case!(K, "src/fixtures/example-apigw-request-catch-all.json", apigw::ApiGatewayProxyRequest),
        case!(K, "src/fixtures/example-apigw-request-multi-value-parameters.json", apigw::ApiGatewayProxyRequest),
        case!(K, "src/fixtures/example-apigw-request.json", apigw::ApiGatewayProxyRequest),
        case!(K, "src/fixtures/example-apigw-response.json", apigw::ApiGatewayProxyResponse),
        case!(K, "src/fixtures/example-apigw-restapi-openapi-request.json", apigw::ApiGatewayProxyRequest),
        case!(K, "src/fixtures/example-apigw-sam-rest-request.json", apigw::ApiGatewayProxyRequest, "not decoded by the crate's tests: type chosen by the harness"),
        case!(K, "src/fixtures/example-apigw-sam-http-request.json", apigw::ApiGatewayV2httpRequest, "not decoded by the crate's tests: type chosen by the harness"),
        case!(K, "src/fixtures/example-apigw-v2-custom-authorizer-v1-request.json", apigw::ApiGatewayV2httpRequest),
        case!(K, "src/fixtures/example-apigw-v2-custom-authorizer-v2-request-null-maps.json", apigw::ApiGatewayV2CustomAuthorizerV2Request),
        case!(K, "src/fixtures/example-apigw-v2-custom-authorizer-v2-request-without-cookies.json", apigw::ApiGatewayV2CustomAuthorizerV2Request),
        case!(K, "src/fixtures/example-apigw-v2-custom-authorizer-v2-request-without-identity-source.json", apigw::ApiGatewayV2CustomAuthorizerV2Request),
        case!(K, "src/fixtures/example-apigw-v2-custom-authorizer-v2-request.json", apigw::ApiGatewayV2CustomAuthorizerV2Request),
        case!(K, "src/fixtures/example-apigw-v2-custom-authorizer-websocket-request.json", apigw::ApiGatewayCustomAuthorizerRequestTypeRequest),
        case!(K, "src/fixtures/example-apigw-v2-request-iam.json", apigw::ApiGatewayV2httpRequest),
        case!(K, "src/fixtures/example-apigw-v2-request-jwt-authorizer.json", apigw::ApiGatewayV2httpRequest),
        case!(K, "src/fixtures/example-apigw-v2-request-lambda-authorizer.json", apigw::ApiGatewayV2httpRequest),
        case!(K, "src/fixtures/example-apigw-v2-request-multi-value-parameters.json", apigw::ApiGatewayV2httpRequest),
        case!(K, "src/fixtures/example-apigw-v2-request-no-authorizer.json", apigw::ApiGatewayV2httpRequest),
        case!(K, "src/fixtures/example-apigw-websocket-request-disconnect-route.json", apigw::ApiGatewayWebsocketProxyRequest),
        case!(K, "src/fixtures/example-apigw-websocket-request-without-method.json", apigw::ApiGatewayWebsocketProxyRequest),
        case!(K, "src/fixtures/example-apigw-websocket-request.json", apigw::ApiGatewayWebsocketProxyRequest),
        case!(K, "src/fixtures/example-iot-custom-auth-request-x509.json", iot::IoTCoreCustomAuthorizerRequest),
        case!(K, "src/fixtures/example-iot-custom-auth-request.json", iot::IoTCoreCustomAuthorizerRequest),
        case!(K, "src/fixtures/example-iot-custom-auth-response.json", iot::IoTCoreCustomAuthorizerResponse),
        case!(K, "src/fixtures/example-s3-event-with-decoded.json", s3::S3Event),
        case!(K, "src/fixtures/example-s3-event.json", s3::S3Event),
        case!(K, "src/fixtures/example-s3-object-lambda-event-get-object-assumed-role.json", s3::object_lambda::S3ObjectLambdaEvent),
        case!(K, "src/fixtures/example-s3-object-lambda-event-get-object-iam.json", s3::object_lambda::S3ObjectLambdaEvent),
        case!(K, "src/fixtures/example-s3-object-lambda-event-head-object-iam.json", s3::object_lambda::S3ObjectLambdaEvent),
        case!(K, "src/fixtures/example-s3-object-lambda-event-list-objects-iam.json", s3::object_lambda::S3ObjectLambdaEvent),
        case!(K, "src/fixtures/example-s3-object-lambda-event-list-objects-v2-iam.json", s3::object_lambda::S3ObjectLambdaEvent),
        case!(K, "src/fixtures/example-vpc-lattice-response.json", vpc_lattice::VpcLatticeResponse),
        case!(K, "src/fixtures/example-vpc-lattice-v1-request.json", vpc_lattice::VpcLatticeRequestV1),
        case!(K, "src/fixtures/example-vpc-lattice-v2-request-base64.json", vpc_lattice::VpcLatticeRequestV2),
        case!(K, "src/fixtures/example-vpc-lattice-v2-request-roles-anywhere.json", vpc_lattice::VpcLatticeRequestV2),
        case!(K, "src/fixtures/example-vpc-lattice-v2-request.json", vpc_lattice::VpcLatticeRequestV2),
    ]);
    all
}
