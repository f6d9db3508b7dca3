"""moto's CPU per command for a delivery-like request mix, against the launcher as bin/reconciler local starts it.

A pending-delivery index of 2,000 commands in 4 shards read in pages of 100, a consistent GetItem per command, marks in
transactions of 25 conditional Updates; prints moto's CPU-seconds (utime + stime from /proc) for the mix. Compare the
launcher's patches with moto's own by running it twice side by side (the same load for both):

  cd local-engines/src/main/resources/com/payments/reconciler/local/moto
  RECONCILER_EXPR_PATCH=off RECONCILER_SERIALIZE_PATCH=off python3 ../../../../../../../../bench/moto_request_mix.py 47011 &
  python3 ../../../../../../../../bench/moto_request_mix.py 47013

To measure one patch alone, switch only it off on the first side (e.g. RECONCILER_DISPATCH_PATCH=off).

(docs/local.md, "Where a local night's time goes").
"""
import subprocess, sys, time, os, boto3, random
from botocore.config import Config
launcher, port = 'moto_launcher.py', int(sys.argv[1])
p = subprocess.Popen([sys.executable, '-B', '-u', launcher, str(port)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
p.stdout.readline(); time.sleep(1)
d = boto3.client('dynamodb', endpoint_url=f'http://127.0.0.1:{port}', region_name='eu-west-1', aws_access_key_id='a',
                 aws_secret_access_key='b', config=Config(retries={'max_attempts': 0}, read_timeout=300))
d.create_table(TableName='cmds', KeySchema=[{'AttributeName': 'operationId', 'KeyType': 'HASH'}],
               AttributeDefinitions=[{'AttributeName': 'operationId', 'AttributeType': 'S'}, {'AttributeName': 'deliveryShard', 'AttributeType': 'S'},
                                     {'AttributeName': 'createdAt', 'AttributeType': 'N'}],
               GlobalSecondaryIndexes=[{'IndexName': 'pending-delivery', 'KeySchema': [{'AttributeName': 'deliveryShard', 'KeyType': 'HASH'},
                                        {'AttributeName': 'createdAt', 'KeyType': 'RANGE'}], 'Projection': {'ProjectionType': 'ALL'}}],
               BillingMode='PAY_PER_REQUEST')
N = 2000
for i in range(N):
    d.put_item(TableName='cmds', Item={'operationId': {'S': f'release-hold:auth-{i:08d}'}, 'authorisationId': {'S': f'auth-{i:08d}'},
        'status': {'S': 'PENDING'}, 'epoch': {'N': '1'}, 'windowId': {'S': '2026-12-06'}, 'createdAt': {'N': str(1796500000000 + i)},
        'attempts': {'N': '0'}, 'amountMinor': {'N': str(1000 + i)}, 'currency': {'S': 'EUR'}, 'deliveryShard': {'S': str(i % 4)},
        'issuedBy': {'S': 'owner-1'}, 'version': {'N': '1'}})
def cpu():
    f = open(f'/proc/{p.pid}/stat').read().split(); return (int(f[13]) + int(f[14])) / os.sysconf('SC_CLK_TCK')
a = cpu()
marks = 0
for shard in range(4):
    start = None
    while True:
        kw = dict(TableName='cmds', IndexName='pending-delivery', KeyConditionExpression='deliveryShard = :s',
                  ExpressionAttributeValues={':s': {'S': str(shard)}}, Limit=100)
        if start: kw['ExclusiveStartKey'] = start
        page = d.query(**kw)
        items = page['Items']
        for it in items:
            d.get_item(TableName='cmds', Key={'operationId': it['operationId']}, ConsistentRead=True)
        for k in range(0, len(items), 25):
            batch = items[k:k + 25]
            d.transact_write_items(TransactItems=[{'Update': {'TableName': 'cmds', 'Key': {'operationId': it['operationId']},
                'UpdateExpression': 'SET #st = :delivered, deliveredAt = :t, deliveredEpoch = :e, attempts = attempts + :one, providerReference = :ref REMOVE deliveryShard',
                'ConditionExpression': '#st = :pending AND epoch = :e',
                'ExpressionAttributeNames': {'#st': 'status'},
                'ExpressionAttributeValues': {':delivered': {'S': 'DELIVERED'}, ':pending': {'S': 'PENDING'}, ':t': {'N': '1796500001000'},
                                              ':e': {'N': '1'}, ':one': {'N': '1'}, ':ref': {'S': 'ref-' + it['operationId']['S'][-8:]}}}}
                for it in batch])
            marks += len(batch)
        start = page.get('LastEvaluatedKey')
        if not start:
            break
b = cpu()
p.kill()
print(f'{os.environ.get("RECONCILER_EXPR_PATCH","on")}/{os.environ.get("RECONCILER_SERIALIZE_PATCH","on")} (expression/serialize patches): {marks} commands, moto cpu {b-a:.2f} s = {1000*(b-a)/marks:.2f} ms per command')
