"""Signature Version 4 on AWS's own worked examples (the S3 documentation's "Examples: Signature
Calculations in AWS Signature Version 4", header-based): a GET with a Range, a PUT with a body and extra
headers, a ListObjects query. The same signer is checked against a real server in
test_s3_remote_storage_manager.py, which refuses a wrong signature."""

from __future__ import annotations

import hashlib

from kafka.log.remote.aws_v4_signer import EMPTY_PAYLOAD_SHA256, AwsCredentials, sign, signing_key, uri_encode

CREDENTIALS = AwsCredentials("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
HOST = "examplebucket.s3.amazonaws.com"
MAY_24_2013 = 1_369_353_600_000  # 20130524T000000Z, the examples' x-amz-date


def signature(headers: dict[str, str]) -> str:
    return headers["authorization"].rsplit("Signature=", 1)[1]


def test_get_object_with_a_range():
    headers = sign("GET", HOST, "/test.txt", {}, {"Range": "bytes=0-9"}, EMPTY_PAYLOAD_SHA256, CREDENTIALS,
                   "us-east-1", "s3", MAY_24_2013)
    assert headers["x-amz-date"] == "20130524T000000Z"
    assert headers["authorization"].startswith(
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ")
    assert signature(headers) == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"


def test_put_object_signs_the_body_hash_and_every_header_sent():
    body = b"Welcome to Amazon S3."
    headers = sign("PUT", HOST, "/test$file.text", {},
                   {"Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"},
                   hashlib.sha256(body).hexdigest(), CREDENTIALS, "us-east-1", "s3", MAY_24_2013)
    assert "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class," \
        in headers["authorization"]
    assert signature(headers) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"


def test_list_objects_signs_the_sorted_query():
    headers = sign("GET", HOST, "/", {"prefix": "J", "max-keys": "2"}, {}, EMPTY_PAYLOAD_SHA256, CREDENTIALS,
                   "us-east-1", "s3", MAY_24_2013)
    assert signature(headers) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"


def test_a_session_token_is_sent_and_signed_and_the_secret_never_printed():
    temporary = AwsCredentials("ASIAEXAMPLE", "s3cr3t-value", session_token="token")
    headers = sign("GET", HOST, "/k", {}, {}, EMPTY_PAYLOAD_SHA256, temporary, "eu-west-1", "s3", MAY_24_2013)
    assert headers["x-amz-security-token"] == "token"
    assert "x-amz-security-token" in headers["authorization"].split("SignedHeaders=")[1].split(",")[0]
    assert "s3cr3t-value" not in repr(temporary)


def test_the_signing_key_depends_on_day_region_and_service():
    keys = {signing_key("s", day, region, service) for day, region, service in
            (("20130524", "us-east-1", "s3"), ("20130525", "us-east-1", "s3"),
             ("20130524", "eu-west-1", "s3"), ("20130524", "us-east-1", "sqs"))}
    assert len(keys) == 4


def test_uri_encoding_keeps_the_unreserved_characters_and_a_path_s_slashes():
    assert uri_encode("orders-0-AbC_d/00000000000000000042-x~y.log", keep_slash=True) == \
        "orders-0-AbC_d/00000000000000000042-x~y.log"
    assert uri_encode("a b+c=d/é") == "a%20b%2Bc%3Dd%2F%C3%A9"
